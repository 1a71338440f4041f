// Keyset pages order by the numeric id, not its text: with ten or more posts published at the same
// moment, "10" must come after "9", or pages skip and repeat posts (found by the benchmark).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { AwaitingCursor } from "../../src/contract/posts.ts";
import { engines } from "../helpers/databases.ts";
import { openPostService, type PostServiceFixture } from "./post-service-fixture.ts";

const target = "https://social.example/@me";
const published = "2024-05-01T12:00:00Z";

for (const engine of engines) {
  describe(`keyset pages with twelve posts at one moment (${engine.name})`, () => {
    let fixture: PostServiceFixture;
    const created: string[] = [];
    before(async () => {
      fixture = await openPostService(engine);
      for (let n = 1; n <= 12; n += 1) {
        const post = await fixture.posts.create({
          properties: { published, content: `post ${n}`, "mp-syndicate-to": [target] },
          slug: `post-${n}`,
        });
        created.push(post.url);
      }
    });
    after(() => fixture.close());

    it("walks the awaiting posts in creation order, each once, five at a time", async () => {
      const seen: string[] = [];
      let cursor: AwaitingCursor | undefined;
      for (;;) {
        const page = await fixture.posts.nextAwaitingSyndication(cursor, 5);
        if (page.length === 0) break;
        seen.push(...page.map((post) => post.url));
        const last = page.at(-1);
        assert.ok(last);
        cursor = { published: last.published, id: last.id };
      }
      assert.deepEqual(seen, created);
    });

    it("lists every post newest first, each once, five at a time", async () => {
      const seen: string[] = [];
      let before: string | undefined;
      for (;;) {
        const page = await fixture.posts.list({ limit: 5, ...(before ? { before } : {}) });
        seen.push(...page.posts.map((post) => post.url));
        if (!page.next) break;
        before = page.next;
      }
      assert.deepEqual(seen, [...created].reverse());
    });
  });
}
