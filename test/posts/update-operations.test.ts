import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Post } from "../../src/contract/posts.ts";
import { engines } from "../helpers/databases.ts";
import { openPostService, type PostServiceFixture } from "./post-service-fixture.ts";

for (const engine of engines) {
  describe(`post service update operations (${engine.name})`, () => {
    let fixture: PostServiceFixture;
    let post: Post;
    before(async () => {
      fixture = await openPostService(engine);
    });
    after(() => fixture.close());

    const fresh = async () => {
      post = await fixture.posts.create({
        properties: {
          name: "Title",
          content: "Body",
          category: ["a", "b"],
          "mp-syndicate-to": ["https://social.example/@me", "https://bsky.example/me"],
          published: "2024-03-01T10:00:00Z",
        },
      });
      return post;
    };

    it("replaces whole properties, and a single value stays a plain value", async () => {
      await fresh();
      const updated = await fixture.posts.update(post.url, {
        replace: { content: ["New body"], name: "New" },
      });
      assert.equal(updated.properties.content, "New body");
      assert.equal(updated.properties.name, "New");
      assert.ok(updated.updated.getTime() >= post.updated.getTime());
    });

    it("adds values without duplicating those already there", async () => {
      await fresh();
      const updated = await fixture.posts.update(post.url, {
        add: { category: ["b", "c", "c"], syndication: ["https://social.example/@me/1"] },
      });
      assert.deepEqual(updated.properties.category, ["a", "b", "c"]);
      assert.deepEqual(updated.properties.syndication, ["https://social.example/@me/1"]);
    });

    it("deletes some values, and a property left without values disappears", async () => {
      await fresh();
      const updated = await fixture.posts.update(post.url, {
        delete: {
          category: ["a"],
          "mp-syndicate-to": ["https://social.example/@me", "https://bsky.example/me"],
        },
      });
      assert.deepEqual(updated.properties.category, ["b"]);
      assert.equal("mp-syndicate-to" in updated.properties, false);
    });

    it("deletes whole properties", async () => {
      await fresh();
      const updated = await fixture.posts.update(post.url, { delete: ["category", "name"] });
      assert.equal("category" in updated.properties, false);
      assert.equal("name" in updated.properties, false);
      assert.equal(updated.properties.content, "Body");
    });

    it("adds to a single-valued property by making it a list", async () => {
      await fresh();
      const updated = await fixture.posts.update(post.url, { add: { name: ["Second"] } });
      assert.deepEqual(updated.properties.name, ["Title", "Second"]);
    });

    it("keeps the published and post-status columns in step with the properties", async () => {
      await fresh();
      const updated = await fixture.posts.update(post.url, {
        replace: { published: "2023-01-01T00:00:00Z", "post-status": "draft" },
      });
      assert.equal(updated.published.toISOString(), "2023-01-01T00:00:00.000Z");
      assert.equal(updated.status, "draft");
      assert.equal(updated.properties["post-status"], "draft");
      assert.equal(updated.properties.url, post.url);
    });

    it("refuses to change the URL or to delete published, and leaves the post as it was", async () => {
      await fresh();
      await assert.rejects(
        fixture.posts.update(post.url, { replace: { url: "https://elsewhere.example/" } }),
        /"url" is set by the server/,
      );
      await assert.rejects(
        fixture.posts.update(post.url, { delete: ["published"] }),
        /use replace to change it/,
      );
      await assert.rejects(
        fixture.posts.update(post.url, { replace: { "post-status": "hidden" } }),
        /"post-status" must be "published" or "draft"/,
      );
      assert.deepEqual((await fixture.posts.findByUrl(post.url))?.properties, post.properties);
    });
  });
}
