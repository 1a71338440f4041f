import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { PostNotFoundError } from "../../src/contract/posts.ts";
import { engines } from "../helpers/databases.ts";
import { openPostService, type PostServiceFixture } from "./post-service-fixture.ts";

for (const engine of engines) {
  describe(`post service create, find, delete and undelete (${engine.name})`, () => {
    let fixture: PostServiceFixture;
    before(async () => {
      fixture = await openPostService(engine);
    });
    after(() => fixture.close());

    it("creates a post at the URL of the publication's pattern, dated where the author lives", async () => {
      const post = await fixture.posts.create({
        properties: { type: "entry", content: "Hello", published: "2024-05-31T23:30:00Z" },
        slug: "Hello World",
      });
      // 23:30 UTC is already 1 June in Berlin.
      assert.equal(post.url, "https://example.org/notes/2024/06/01/hello-world/");
      assert.match(post.id, /^[0-9]+$/);
      assert.equal(post.status, "published");
      assert.equal(post.deleted, false);
      assert.equal(post.published.toISOString(), "2024-05-31T23:30:00.000Z");
      assert.deepEqual(post.properties, {
        type: "entry",
        content: "Hello",
        published: "2024-05-31T23:30:00Z",
        "post-status": "published",
        url: post.url,
      });
    });

    it("keeps the client's published text with its offset, and sets now when none is given", async () => {
      const kept = await fixture.posts.create({
        properties: { content: "offset", published: "2024-01-02T03:04:05+02:00" },
      });
      assert.equal(kept.properties.published, "2024-01-02T03:04:05+02:00");
      assert.equal(kept.published.toISOString(), "2024-01-02T01:04:05.000Z");
      const start = Date.now();
      const now = await fixture.posts.create({ properties: { content: "now" } });
      assert.ok(Math.abs(now.published.getTime() - start) < 60_000);
      assert.equal(now.properties.published, now.published.toISOString());
      assert.equal(now.properties.type, "entry");
    });

    it("stores the always-array properties as arrays and photos as objects", async () => {
      const post = await fixture.posts.create({
        properties: {
          category: "one",
          "mp-syndicate-to": "https://social.example/@me",
          photo: "https://example.org/a.jpg",
          name: "Named",
        },
      });
      assert.deepEqual(post.properties.category, ["one"]);
      assert.deepEqual(post.properties["mp-syndicate-to"], ["https://social.example/@me"]);
      assert.deepEqual(post.properties.photo, [{ url: "https://example.org/a.jpg" }]);
      assert.equal(post.properties.name, "Named");
      assert.match(post.url, /\/named\/$/);
    });

    it("creates drafts from the status or from post-status", async () => {
      const fromInput = await fixture.posts.create({ properties: { content: "d1" }, status: "draft" });
      assert.equal(fromInput.status, "draft");
      assert.equal(fromInput.properties["post-status"], "draft");
      const fromProperty = await fixture.posts.create({
        properties: { content: "d2", "post-status": "draft" },
      });
      assert.equal(fromProperty.status, "draft");
    });

    it("rejects an unreadable published date", async () => {
      await assert.rejects(
        fixture.posts.create({ properties: { content: "x", published: "yesterday" } }),
        /"published" must be an ISO 8601 date/,
      );
    });

    it("finds a post by URL and by id, and answers null for unknown ones", async () => {
      const post = await fixture.posts.create({ properties: { content: "find me" } });
      assert.deepEqual(await fixture.posts.findByUrl(post.url), post);
      assert.deepEqual(await fixture.posts.findById(post.id), post);
      assert.equal(await fixture.posts.findByUrl("https://example.org/notes/nothing/"), null);
      assert.equal(await fixture.posts.findById("999999999"), null);
      assert.equal(await fixture.posts.findById("not-a-number"), null);
    });

    it("deletes and undeletes, keeping the post findable and flagged", async () => {
      const post = await fixture.posts.create({ properties: { content: "short-lived" } });
      const deleted = await fixture.posts.delete(post.url);
      assert.equal(deleted.deleted, true);
      assert.equal((await fixture.posts.findByUrl(post.url))?.deleted, true);
      const restored = await fixture.posts.undelete(post.url);
      assert.equal(restored.deleted, false);
      assert.deepEqual(restored.properties, post.properties);
    });

    it("throws PostNotFoundError for an unknown URL", async () => {
      const url = "https://example.org/notes/missing/";
      await assert.rejects(fixture.posts.delete(url), PostNotFoundError);
      await assert.rejects(fixture.posts.undelete(url), PostNotFoundError);
      await assert.rejects(fixture.posts.update(url, { add: { category: ["x"] } }), PostNotFoundError);
    });
  });
}
