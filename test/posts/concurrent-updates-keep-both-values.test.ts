import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import { openPostService, type PostServiceFixture } from "./post-service-fixture.ts";

for (const engine of engines) {
  describe(`concurrent updates keep both values (${engine.name})`, () => {
    let fixture: PostServiceFixture;
    before(async () => {
      fixture = await openPostService(engine);
    });
    after(() => fixture.close());

    it("keeps every value of many concurrent adds to one post", async () => {
      const post = await fixture.posts.create({ properties: { content: "x" } });
      const values = Array.from({ length: 10 }, (_, i) => `tag-${i}`);
      await Promise.all(
        values.map((value) => fixture.posts.update(post.url, { add: { category: [value] } })),
      );
      const saved = await fixture.posts.findByUrl(post.url);
      assert.deepEqual([...((saved?.properties.category as string[]) ?? [])].sort(), [...values].sort());
    });

    it("keeps a syndication write-back and a user's edit made at the same time", async () => {
      const post = await fixture.posts.create({
        properties: { content: "x", "mp-syndicate-to": ["https://social.example/@me"] },
      });
      await Promise.all([
        fixture.posts.update(post.url, {
          add: { syndication: ["https://social.example/@me/42"] },
          delete: { "mp-syndicate-to": ["https://social.example/@me"] },
        }),
        fixture.posts.update(post.url, { replace: { content: "edited" }, add: { category: ["later"] } }),
      ]);
      const saved = await fixture.posts.findByUrl(post.url);
      assert.deepEqual(saved?.properties.syndication, ["https://social.example/@me/42"]);
      assert.equal(saved?.properties["mp-syndicate-to"], undefined);
      assert.equal(saved?.properties.content, "edited");
      assert.deepEqual(saved?.properties.category, ["later"]);
    });
  });
}
