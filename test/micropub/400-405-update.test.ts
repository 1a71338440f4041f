// micropub.rocks server cases 400-405: updating posts with JSON requests.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import {
  BLUESKY,
  errorOf,
  MASTODON,
  ME,
  type MicropubServer,
  startMicropubServer,
} from "./micropub-server.ts";

for (const engine of engines) {
  describe(`Micropub update (${engine.name})`, () => {
    let mp: MicropubServer;
    before(async () => {
      mp = await startMicropubServer(engine);
    });
    after(() => mp.close());

    const update = async (body: Record<string, unknown>) => mp.postJson({ action: "update", ...body });
    const updated = async (body: Record<string, unknown>) => {
      const response = await update(body);
      assert.ok([200, 201, 204].includes(response.status), `${response.status} ${await response.text()}`);
    };

    it("400 replaces a property", async () => {
      const url = await mp.create({ content: ["Micropub update test."] });
      await updated({ url, replace: { content: ["This content has been updated."] } });
      assert.deepEqual((await mp.source(url)).content, ["This content has been updated."]);
    });

    it("401 adds a value to an existing property", async () => {
      const url = await mp.create({ content: ["Add a value"], category: ["test1"] });
      await updated({ url, add: { category: ["test2"] } });
      assert.deepEqual((await mp.source(url)).category, ["test1", "test2"]);
    });

    it("402 adds a value to a non-existent property", async () => {
      const url = await mp.create({ content: ["Add a property"] });
      await updated({ url, add: { category: ["test1"] } });
      assert.deepEqual((await mp.source(url)).category, ["test1"]);
    });

    it("403 removes a value from a property", async () => {
      const url = await mp.create({ content: ["Remove a value"], category: ["test1", "remove me"] });
      await updated({ url, delete: { category: ["remove me"] } });
      assert.deepEqual((await mp.source(url)).category, ["test1"]);
    });

    it("404 removes a property", async () => {
      const url = await mp.create({ content: ["Remove a property"], category: ["test1", "test2"] });
      await updated({ url, delete: ["category"] });
      const properties = await mp.source(url);
      assert.equal("category" in properties, false);
      assert.deepEqual(properties.content, ["Remove a property"]);
    });

    it("405 rejects the request if the operation is not an array", async () => {
      const url = await mp.create({ content: ["Micropub update test #405."] });
      const response = await update({ url, replace: "This is not a valid update request." });
      const error = await errorOf(response);
      assert.equal(error.status, 400);
      assert.equal(error.error, "invalid_request");
      assert.deepEqual((await mp.source(url)).content, ["Micropub update test #405."]);
    });

    it("rejects other malformed operations with 400 invalid_request", async () => {
      const url = await mp.create({ content: ["Malformed"] });
      for (const body of [
        { url, add: { category: "not a list" } },
        { url, delete: "category" },
        { url, delete: { category: "x" } },
        { url },
        { replace: { content: ["no url"] } },
      ]) {
        const error = await errorOf(await update(body));
        assert.equal(error.status, 400, JSON.stringify(body));
        assert.equal(error.error, "invalid_request");
      }
    });

    it("answers 400 with a clear description for an unknown URL", async () => {
      const missing = `${ME}notes/no-such-post/`;
      const error = await errorOf(await update({ url: missing, replace: { content: ["x"] } }));
      assert.equal(error.status, 400);
      assert.equal(error.error, "invalid_request");
      assert.ok(error.description.includes(`No post exists at ${missing}`), error.description);
    });

    it("refuses to change the URL the server chose", async () => {
      const url = await mp.create({ content: ["Fixed URL"] });
      const error = await errorOf(await update({ url, replace: { url: ["https://elsewhere.example/"] } }));
      assert.equal(error.status, 400);
      assert.match(error.description, /"url" is set by the server/);
    });

    it("adds HTML content, nested objects and photos in their stored form", async () => {
      const url = await mp.create({ content: ["Plain"] });
      await updated({
        url,
        replace: { content: [{ html: "<p>Rich</p>" }] },
        add: { photo: [{ value: "https://example.org/p.jpg", alt: "P" }] },
      });
      const post = await mp.server.host.posts?.findByUrl(url);
      assert.deepEqual(post?.properties.content, { html: "<p>Rich</p>", text: "Rich" });
      assert.deepEqual(post?.properties.photo, [{ url: "https://example.org/p.jpg", alt: "P" }]);
      await updated({ url, delete: { photo: [{ value: "https://example.org/p.jpg", alt: "P" }] } });
      assert.equal("photo" in (await mp.source(url)), false);
    });

    it("adds syndication targets without duplicates, keeping one not configured, refusing a non-uid", async () => {
      const url = await mp.create({ content: ["Targets"], "mp-syndicate-to": [MASTODON] });
      await updated({ url, add: { "mp-syndicate-to": [MASTODON, BLUESKY] } });
      assert.deepEqual((await mp.source(url))["mp-syndicate-to"], [MASTODON, BLUESKY]);
      await updated({ url, add: { "mp-syndicate-to": ["https://nowhere.example/"] } });
      assert.deepEqual((await mp.source(url))["mp-syndicate-to"], [
        MASTODON,
        BLUESKY,
        "https://nowhere.example/",
      ]);
      const error = await errorOf(await update({ url, add: { "mp-syndicate-to": [42] } }));
      assert.equal(error.status, 400);
    });

    it("answers the Done-when flow: form create with two targets, read, replace, add, list", async () => {
      const response = await mp.postForm(
        `h=entry&content=Done+when&mp-syndicate-to%5B%5D=${encodeURIComponent(MASTODON)}&mp-syndicate-to%5B%5D=${encodeURIComponent(BLUESKY)}`,
      );
      assert.equal(response.status, 201);
      const url = response.headers.get("location");
      assert.ok(url);
      assert.deepEqual((await mp.source(url))["mp-syndicate-to"], [MASTODON, BLUESKY]);
      await updated({ url, replace: { content: ["Replaced"] }, add: { category: ["added"] } });
      const properties = await mp.source(url);
      assert.deepEqual(properties.content, ["Replaced"]);
      assert.deepEqual(properties.category, ["added"]);
      const list = (await (await mp.query("q=source&limit=1")).json()) as {
        items: { properties: { url: string[] } }[];
      };
      assert.deepEqual(list.items[0]?.properties.url, [url]);
    });
  });
}
