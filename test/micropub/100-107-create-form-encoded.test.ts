// micropub.rocks server cases 100-107: creating posts with form-encoded requests.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import { BLUESKY, MASTODON, ME, type MicropubServer, startMicropubServer } from "./micropub-server.ts";

for (const engine of engines) {
  describe(`Micropub create, form-encoded (${engine.name})`, () => {
    let mp: MicropubServer;
    before(async () => {
      mp = await startMicropubServer(engine);
    });
    after(() => mp.close());

    const created = async (body: string) => {
      const response = await mp.postForm(body);
      assert.equal(response.status, 201, await response.clone().text());
      const location = response.headers.get("location");
      assert.ok(location, "a Location header");
      assert.ok(location.startsWith(`${ME}notes/`), `Location ${location}`);
      return location;
    };

    it("100 creates an h-entry post", async () => {
      const url = await created("h=entry&content=Micropub+test+of+creating+a+basic+h-entry");
      const properties = await mp.source(url);
      assert.deepEqual(properties.content, ["Micropub test of creating a basic h-entry"]);
      assert.deepEqual(properties.url, [url]);
      assert.deepEqual(properties["post-status"], ["published"]);
      assert.equal(typeof properties.published?.[0], "string");
    });

    it("101 creates an h-entry post with multiple categories (category[])", async () => {
      const url = await created("h=entry&content=Two+categories&category%5B%5D=test1&category%5B%5D=test2");
      assert.deepEqual((await mp.source(url)).category, ["test1", "test2"]);
    });

    it("102 creates an h-entry post with categories sent as category[0] and category[1]", async () => {
      const url = await created("h=entry&content=Indexed&category%5B0%5D=test1&category%5B1%5D=test2");
      assert.deepEqual((await mp.source(url)).category, ["test1", "test2"]);
    });

    it("103 creates an h-entry post with HTML content (content[html])", async () => {
      const html = "<p>This post has <b>bold</b> and <i>italic</i> text.</p>";
      const url = await created(`h=entry&content%5Bhtml%5D=${encodeURIComponent(html)}`);
      assert.deepEqual((await mp.source(url)).content, [
        { html, value: "This post has bold and italic text." },
      ]);
    });

    it("104 creates an h-entry with a photo referenced by URL", async () => {
      const photo = "https://micropub.rocks/media/sunset.jpg";
      const url = await created(`h=entry&content=Photo&photo=${encodeURIComponent(photo)}`);
      assert.deepEqual((await mp.source(url)).photo, [photo]);
    });

    it("105 creates an h-entry with a photo and its alt text (photo[value], photo[alt])", async () => {
      const photo = "https://micropub.rocks/media/sunset.jpg";
      const url = await created(
        `h=entry&content=Photo&photo%5Bvalue%5D=${encodeURIComponent(photo)}&photo%5Balt%5D=Photo+of+a+sunset`,
      );
      assert.deepEqual((await mp.source(url)).photo, [{ value: photo, alt: "Photo of a sunset" }]);
    });

    it("106 creates an h-entry with a nested object", async () => {
      const url = await created(
        "h=entry&summary=Weighed+70.64+kg&x-weight%5Btype%5D=h-measure" +
          "&x-weight%5Bproperties%5D%5Bnum%5D=70.64&x-weight%5Bproperties%5D%5Bunit%5D=kg",
      );
      assert.deepEqual((await mp.source(url))["x-weight"], [
        { type: ["h-measure"], properties: { num: ["70.64"], unit: ["kg"] } },
      ]);
    });

    it("107 creates an h-entry post with one category sent as category (not category[])", async () => {
      const url = await created("h=entry&content=One+category&category=test1");
      assert.deepEqual((await mp.source(url)).category, ["test1"]);
      const post = await mp.server.host.posts?.findByUrl(url);
      assert.deepEqual(post?.properties.category, ["test1"]);
    });

    it("keeps two syndication targets, whether sent as mp-syndicate-to[] or repeated", async () => {
      const targets = `mp-syndicate-to%5B%5D=${encodeURIComponent(MASTODON)}&mp-syndicate-to%5B%5D=${encodeURIComponent(BLUESKY)}`;
      const url = await created(`h=entry&content=Syndicate+me&${targets}`);
      assert.deepEqual((await mp.source(url))["mp-syndicate-to"], [MASTODON, BLUESKY]);
      const one = await created(`h=entry&content=Just+one&mp-syndicate-to=${encodeURIComponent(MASTODON)}`);
      const post = await mp.server.host.posts?.findByUrl(one);
      assert.deepEqual(post?.properties["mp-syndicate-to"], [MASTODON]);
    });

    it("takes the slug from mp-slug and never stores it as a property", async () => {
      const url = await created("h=entry&content=Slugged&mp-slug=My+Slug");
      assert.equal(url, `${ME}notes/my-slug/`);
      assert.equal("mp-slug" in (await mp.source(url)), false);
      assert.equal(await created("h=entry&content=Again&mp-slug=my-slug"), `${ME}notes/my-slug-2/`);
    });

    it("keeps the published date given, and creates a draft when post-status is draft", async () => {
      const url = await created(
        "h=entry&content=Dated&published=2024-02-03T04%3A05%3A06%2B01%3A00&post-status=draft",
      );
      const post = await mp.server.host.posts?.findByUrl(url);
      assert.equal(post?.status, "draft");
      assert.equal(post?.published.toISOString(), "2024-02-03T03:05:06.000Z");
      assert.deepEqual((await mp.source(url)).published, ["2024-02-03T04:05:06+01:00"]);
    });
  });
}
