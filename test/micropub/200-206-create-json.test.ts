// micropub.rocks server cases 200-206: creating posts with JSON requests.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import { BLUESKY, MASTODON, ME, type MicropubServer, startMicropubServer } from "./micropub-server.ts";

for (const engine of engines) {
  describe(`Micropub create, JSON (${engine.name})`, () => {
    let mp: MicropubServer;
    before(async () => {
      mp = await startMicropubServer(engine);
    });
    after(() => mp.close());

    const created = async (properties: Record<string, unknown>) => {
      const response = await mp.postJson({ type: ["h-entry"], properties });
      assert.equal(response.status, 201, await response.clone().text());
      const location = response.headers.get("location");
      assert.ok(location, "a Location header");
      assert.ok(location.startsWith(`${ME}notes/`), `Location ${location}`);
      return location;
    };

    it("200 creates an h-entry post", async () => {
      const url = await created({ content: ["Micropub test of creating an h-entry with a JSON request"] });
      assert.deepEqual((await mp.source(url)).content, [
        "Micropub test of creating an h-entry with a JSON request",
      ]);
    });

    it("201 creates an h-entry post with multiple categories", async () => {
      const url = await created({ content: ["Two categories"], category: ["test1", "test2"] });
      assert.deepEqual((await mp.source(url)).category, ["test1", "test2"]);
    });

    it("202 creates an h-entry with HTML content", async () => {
      const html = "<p>This post has <b>bold</b> and <i>italic</i> text.</p>";
      const url = await created({ content: [{ html }] });
      assert.deepEqual((await mp.source(url)).content, [
        { html, value: "This post has bold and italic text." },
      ]);
      const post = await mp.server.host.posts?.findByUrl(url);
      assert.deepEqual(post?.properties.content, { html, text: "This post has bold and italic text." });
    });

    it("203 creates an h-entry with a photo referenced by URL", async () => {
      const photo = "https://micropub.rocks/media/sunset.jpg";
      const url = await created({ content: ["Photo"], photo: [photo] });
      assert.deepEqual((await mp.source(url)).photo, [photo]);
    });

    it("204 creates an h-entry post with a nested object", async () => {
      const weight = { type: ["h-measure"], properties: { num: ["70.64"], unit: ["kg"] } };
      const url = await created({ summary: ["Weighed 70.64 kg"], "x-weight": [weight] });
      assert.deepEqual((await mp.source(url))["x-weight"], [weight]);
    });

    it("205 creates an h-entry post with a photo with alt text", async () => {
      const photo = { value: "https://micropub.rocks/media/sunset.jpg", alt: "Photo of a sunset" };
      const url = await created({ content: ["Alt text"], photo: [photo] });
      assert.deepEqual((await mp.source(url)).photo, [photo]);
      const post = await mp.server.host.posts?.findByUrl(url);
      assert.deepEqual(post?.properties.photo, [{ url: photo.value, alt: photo.alt }]);
    });

    it("206 creates an h-entry with multiple photos referenced by URL", async () => {
      const photos = [
        "https://micropub.rocks/media/sunset.jpg",
        "https://micropub.rocks/media/city-at-night.jpg",
      ];
      const url = await created({ content: ["Two photos"], photo: photos });
      assert.deepEqual((await mp.source(url)).photo, photos);
    });

    it("keeps mp-syndicate-to sent as a list or as a plain string", async () => {
      const both = await created({ content: ["x"], "mp-syndicate-to": [MASTODON, BLUESKY] });
      assert.deepEqual((await mp.source(both))["mp-syndicate-to"], [MASTODON, BLUESKY]);
      const one = await created({ content: ["y"], "mp-syndicate-to": MASTODON });
      assert.deepEqual((await mp.source(one))["mp-syndicate-to"], [MASTODON]);
    });

    it("keeps a syndication target the server does not have (a stale client list) instead of losing the post", async () => {
      const extra = "https://social.example/@me/extra";
      const url = await created({ content: ["x"], "mp-syndicate-to": [MASTODON, extra] });
      assert.deepEqual((await mp.source(url))["mp-syndicate-to"], [MASTODON, extra]);
      const response = await mp.postJson({
        type: ["h-entry"],
        properties: { content: ["x"], "mp-syndicate-to": [{ uid: extra }] },
      });
      assert.equal(response.status, 400, "a value that is not a uid is still refused");
      const body = (await response.json()) as { error: string; error_description: string };
      assert.equal(body.error, "invalid_request");
      assert.match(body.error_description, /mp-syndicate-to values are target uids/);
    });

    it("keeps the published date given, takes the slug from the name, and creates drafts", async () => {
      const url = await created({
        name: ["A Title Here"],
        content: ["Body"],
        published: ["2023-06-07T08:09:10Z"],
        "post-status": ["draft"],
      });
      assert.equal(url, `${ME}notes/a-title-here/`);
      const post = await mp.server.host.posts?.findByUrl(url);
      assert.equal(post?.status, "draft");
      assert.equal(post?.published.toISOString(), "2023-06-07T08:09:10.000Z");
    });

    it("answers 400 invalid_request for a JSON body that is not an mf2 item", async () => {
      const response = await mp.postJson({ type: "h-entry", properties: { content: "x" } });
      assert.equal(response.status, 400);
      assert.equal(((await response.json()) as { error: string }).error, "invalid_request");
    });

    it("answers 400 invalid_request for an unreadable published date", async () => {
      const response = await mp.postJson({ type: ["h-entry"], properties: { published: ["last tuesday"] } });
      assert.equal(response.status, 400);
      const body = (await response.json()) as { error: string; error_description: string };
      assert.equal(body.error, "invalid_request");
      assert.match(body.error_description, /ISO 8601/);
    });
  });
}
