import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createPostUrlBuilder } from "../../src/server/posts/post-url.ts";
import { engines } from "../helpers/databases.ts";
import { openPostService, type PostServiceFixture, publication } from "./post-service-fixture.ts";

for (const engine of engines) {
  describe(`post service unique slugs (${engine.name})`, () => {
    let fixture: PostServiceFixture;
    before(async () => {
      fixture = await openPostService(engine, { postUrlPattern: "{me}notes/{slug}/" });
    });
    after(() => fixture.close());

    it("takes the slug from mp-slug, else from the name, else a short random id", async () => {
      const fromSlug = await fixture.posts.create({ properties: { name: "Ignored" }, slug: "Chosen Slug!" });
      assert.equal(fromSlug.url, "https://example.org/notes/chosen-slug/");
      const fromName = await fixture.posts.create({ properties: { name: "Ça va, Zoë?" } });
      assert.equal(fromName.url, "https://example.org/notes/ca-va-zoe/");
      const random = await fixture.posts.create({ properties: { content: "no name" } });
      assert.match(random.url, /^https:\/\/example\.org\/notes\/[a-z0-9]{6}\/$/);
    });

    it("appends -2, -3 … to a slug already taken", async () => {
      const urls: string[] = [];
      for (let i = 0; i < 3; i++)
        urls.push((await fixture.posts.create({ properties: {}, slug: "same" })).url);
      assert.deepEqual(urls, [
        "https://example.org/notes/same/",
        "https://example.org/notes/same-2/",
        "https://example.org/notes/same-3/",
      ]);
    });

    it("gives concurrent creates with one slug distinct URLs", async () => {
      const posts = await Promise.all(
        Array.from({ length: 8 }, () => fixture.posts.create({ properties: {}, slug: "race" })),
      );
      const urls = posts.map((post) => post.url).sort();
      assert.equal(new Set(urls).size, 8);
      assert.ok(
        urls.every((url) => /\/notes\/race(-[2-8])?\/$/.test(url)),
        urls.join(", "),
      );
    });

    it("keeps a deleted post's URL reserved", async () => {
      const first = await fixture.posts.create({ properties: {}, slug: "gone" });
      await fixture.posts.delete(first.url);
      const second = await fixture.posts.create({ properties: {}, slug: "gone" });
      assert.equal(second.url, "https://example.org/notes/gone-2/");
    });
  });
}

describe("post URL pattern checks", () => {
  it("refuses a pattern without {slug} or with an unknown placeholder", () => {
    const check = (postUrlPattern: string) => () => createPostUrlBuilder({ ...publication, postUrlPattern });
    assert.throws(check("{me}{yyyy}/"), /lacks \{slug\}/);
    assert.throws(check("{me}{type}/{slug}"), /uses \{type\}/);
    assert.throws(check("notes/{slug}"), /does not give an absolute URL/);
  });
});
