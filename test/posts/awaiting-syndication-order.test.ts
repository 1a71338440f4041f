import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import { openPostService, type PostServiceFixture } from "./post-service-fixture.ts";

const target = "https://social.example/@me";

for (const engine of engines) {
  describe(`posts awaiting syndication (${engine.name})`, () => {
    let fixture: PostServiceFixture;
    const expected: string[] = [];
    before(async () => {
      fixture = await openPostService(engine);
      const create = (published: string, extra: Record<string, unknown> = {}, slug?: string) =>
        fixture.posts.create({ properties: { published, "mp-syndicate-to": [target], ...extra }, slug });
      // Created out of order: the order awaited is by published time, then by creation (id).
      const late = await create("2024-01-03T00:00:00Z", {}, "late");
      const tieA = await create("2024-01-02T00:00:00Z", {}, "tie-a");
      const tieB = await create("2024-01-02T00:00:00Z", {}, "tie-b");
      const early = await create("2024-01-01T00:00:00Z", {}, "early");
      expected.push(early.url, tieA.url, tieB.url, late.url);
      // None of these await syndication.
      await create("2023-01-01T00:00:00Z", { "post-status": "draft" }, "draft");
      await fixture.posts.delete((await create("2023-01-01T00:00:00Z", {}, "deleted")).url);
      await fixture.posts.create({ properties: { published: "2023-01-01T00:00:00Z" }, slug: "no-targets" });
      const done = await create("2023-01-01T00:00:00Z", {}, "done");
      await fixture.posts.update(done.url, { delete: { "mp-syndicate-to": [target] } });
    });
    after(() => fixture.close());

    it("lists published, undeleted posts with targets, oldest first then by id", async () => {
      const posts = await fixture.posts.nextAwaitingSyndication();
      assert.deepEqual(
        posts.map((post) => post.url),
        expected,
      );
    });

    it("continues strictly after the given position, including between equal published times", async () => {
      const [, tieA] = await fixture.posts.nextAwaitingSyndication(undefined, 2);
      assert.ok(tieA);
      const rest = await fixture.posts.nextAwaitingSyndication(
        { published: tieA.published, id: tieA.id },
        10,
      );
      assert.deepEqual(
        rest.map((post) => post.url),
        expected.slice(2),
      );
      const one = await fixture.posts.nextAwaitingSyndication({ published: tieA.published, id: tieA.id }, 1);
      assert.deepEqual(
        one.map((post) => post.url),
        expected.slice(2, 3),
      );
    });

    it("counts them and pages through them by offset for the admin page", async () => {
      assert.equal(await fixture.posts.countAwaitingSyndication(), 4);
      const page = await fixture.posts.listAwaitingSyndication({ offset: 1, limit: 2 });
      assert.deepEqual(
        page.map((post) => post.url),
        expected.slice(1, 3),
      );
    });

    it("picks a draft up once it is published", async () => {
      const draft = await fixture.posts.create({
        properties: {
          published: "2020-01-01T00:00:00Z",
          "mp-syndicate-to": [target],
          "post-status": "draft",
        },
      });
      assert.equal((await fixture.posts.nextAwaitingSyndication(undefined, 1))[0]?.url, expected[0]);
      await fixture.posts.update(draft.url, { replace: { "post-status": "published" } });
      assert.equal((await fixture.posts.nextAwaitingSyndication(undefined, 1))[0]?.url, draft.url);
      await fixture.posts.delete(draft.url);
    });
  });
}
