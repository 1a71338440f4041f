import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { InvalidCursorError } from "../../src/server/posts/errors.ts";
import { engines } from "../helpers/databases.ts";
import { openPostService, type PostServiceFixture } from "./post-service-fixture.ts";

for (const engine of engines) {
  describe(`post list keyset paging (${engine.name})`, () => {
    let fixture: PostServiceFixture;
    // Newest first: five posts, two sharing a published time (then the later created comes first).
    const newestFirst: string[] = [];
    before(async () => {
      fixture = await openPostService(engine);
      const times = ["2024-01-01", "2024-01-02", "2024-01-03", "2024-01-03", "2024-01-05"];
      const urls: string[] = [];
      for (const [i, day] of times.entries()) {
        const post = await fixture.posts.create({
          properties: { published: `${day}T00:00:00Z` },
          slug: `p${i}`,
        });
        urls.push(post.url);
      }
      newestFirst.push(...urls.reverse());
      const gone = await fixture.posts.create({
        properties: { published: "2024-01-04T00:00:00Z" },
        slug: "gone",
      });
      await fixture.posts.delete(gone.url);
    });
    after(() => fixture.close());

    it("pages newest first with `next`, leaving out deleted posts", async () => {
      const first = await fixture.posts.list({ limit: 2 });
      assert.deepEqual(
        first.posts.map((post) => post.url),
        newestFirst.slice(0, 2),
      );
      assert.equal(first.previous, undefined);
      assert.ok(first.next);
      const second = await fixture.posts.list({ limit: 2, before: first.next });
      assert.deepEqual(
        second.posts.map((post) => post.url),
        newestFirst.slice(2, 4),
      );
      assert.ok(second.next);
      const last = await fixture.posts.list({ limit: 2, before: second.next });
      assert.deepEqual(
        last.posts.map((post) => post.url),
        newestFirst.slice(4),
      );
      assert.equal(last.next, undefined);
    });

    it("pages back to newer posts with `previous`, still newest first", async () => {
      const first = await fixture.posts.list({ limit: 2 });
      const second = await fixture.posts.list({ limit: 2, before: first.next });
      assert.ok(second.previous);
      const back = await fixture.posts.list({ limit: 2, after: second.previous });
      assert.deepEqual(
        back.posts.map((post) => post.url),
        newestFirst.slice(0, 2),
      );
      assert.equal(back.previous, undefined);
      assert.equal(back.next, first.next);
    });

    it("refuses a cursor it did not hand out", async () => {
      await assert.rejects(fixture.posts.list({ limit: 2, before: "bm90LWEtY3Vyc29y" }), InvalidCursorError);
    });
  });
}
