// The Micropub target against real software: a second possekit server is the other site. A post
// with text, categories and a photo with alt text, created on the first, is syndicated through the
// first's endpoint into the second's Micropub endpoint, and read back there with q=source.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PostResult } from "../../src/syndication/types.ts";
import { MicropubSyndicator } from "../../src/syndicators/micropub/index.ts";
import { engines } from "../helpers/databases.ts";
import { postMicropubJson } from "../helpers/micropub-create.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { PLUGIN_PACKAGE } from "./endpoint-server.ts";

for (const engine of engines) {
  describe(`syndicating to another possekit through Micropub (${engine.name})`, () => {
    let other: TestServer;
    let home: TestServer;
    let homeToken: string;
    let otherToken: string;
    let uid: string;
    before(async () => {
      other = await startTestServer({
        engine,
        config: {
          plugins: [],
          publication: { me: "https://other.example/", postUrlPattern: "{me}copies/{slug}/" },
        },
      });
      otherToken = await other.token("create");
      const syndicator = new MicropubSyndicator({
        micropubEndpoint: `${other.url}/micropub`,
        accessToken: otherToken,
        name: "My other site",
      });
      uid = syndicator.info.uid;
      home = await startTestServer({ engine, config: { plugins: [PLUGIN_PACKAGE] }, plugins: [syndicator] });
      homeToken = await home.token("create update");
    });
    after(async () => {
      await home?.close();
      await other?.close();
    });

    const micropub = (server: TestServer, token: string, body: unknown) =>
      postMicropubJson(server.url, token, body);
    const source = async (server: TestServer, token: string, url: string) => {
      const response = await fetch(`${server.url}/micropub?q=source&url=${encodeURIComponent(url)}`, {
        headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      });
      assert.equal(response.status, 200, await response.clone().text());
      return ((await response.json()) as { properties: Record<string, unknown[]> }).properties;
    };

    it("creates the copy with its text, categories and photo with alt text, and links it back", async () => {
      const created = await micropub(home, homeToken, {
        type: ["h-entry"],
        properties: {
          content: ["A walk by the river"],
          category: ["walks", "rivers"],
          photo: [{ value: "https://example.org/media/river.jpg", alt: "A river at dusk" }],
          "mp-syndicate-to": [uid],
        },
      });
      assert.equal(created.status, 201);
      const post = created.headers.get("location");
      assert.ok(post);

      const answer = await fetch(`${home.url}/syndicate?source_url=${encodeURIComponent(post)}`, {
        method: "POST",
        headers: { authorization: `Bearer ${homeToken}`, accept: "application/json" },
      });
      assert.equal(answer.status, 200);
      const result = (await answer.json()) as PostResult;
      assert.equal(result.status, "syndicated", JSON.stringify(result.targets));
      const copy = result.targets[0]?.url ?? "";
      assert.ok(copy.startsWith("https://other.example/copies/"), copy);

      const copied = await source(other, await other.token("create update"), copy);
      assert.deepEqual(copied.content, ["A walk by the river"]);
      assert.deepEqual(copied.category, ["walks", "rivers"]);
      assert.deepEqual(copied.photo, [
        { value: "https://example.org/media/river.jpg", alt: "A river at dusk" },
      ]);
      assert.deepEqual((await source(home, homeToken, post)).syndication, [copy]);
    });
  });
}
