// Decision 0026: a Micropub client gives the text for some targets with mp-syndicate-text, an object
// keyed by target uid (JSON, or mp-syndicate-text[<uid>]=… in a form). It is kept with the post; a
// text for a uid the server does not have is refused with 400 naming it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import { BLUESKY, MASTODON, type MicropubServer, startMicropubServer } from "./micropub-server.ts";

for (const engine of engines) {
  describe(`Micropub mp-syndicate-text (${engine.name})`, () => {
    let mp: MicropubServer;
    before(async () => {
      mp = await startMicropubServer(engine);
    });
    after(() => mp.close());

    const stored = async (url: string) => (await mp.server.host.posts?.findByUrl(url))?.properties;

    it("201: JSON, the texts are kept with the post by target uid", async () => {
      const response = await mp.postJson({
        type: ["h-entry"],
        properties: {
          content: ["A long post about herons"],
          "mp-syndicate-to": [MASTODON, BLUESKY],
          "mp-syndicate-text": [{ [MASTODON]: "Herons! 🐦", [BLUESKY]: "Herons, for Bluesky" }],
        },
      });
      assert.equal(response.status, 201, await response.clone().text());
      const properties = await stored(response.headers.get("location") ?? "");
      assert.deepEqual(properties?.["mp-syndicate-text"], {
        [MASTODON]: "Herons! 🐦",
        [BLUESKY]: "Herons, for Bluesky",
      });
    });

    it("201: form-encoded, mp-syndicate-text[<uid>]=<text>", async () => {
      const body = new URLSearchParams({ h: "entry", content: "Form post" });
      body.append("mp-syndicate-to[]", MASTODON);
      body.append(`mp-syndicate-text[${MASTODON}]`, "Form words\r\nfor Mastodon");
      const response = await mp.postForm(body.toString());
      assert.equal(response.status, 201, await response.clone().text());
      const properties = await stored(response.headers.get("location") ?? "");
      assert.deepEqual(properties?.["mp-syndicate-text"], { [MASTODON]: "Form words\nfor Mastodon" });
    });

    it("400 naming the unknown uids, and nothing is created", async () => {
      const before = (await mp.server.host.posts?.list({ limit: 100 }))?.posts.length;
      const response = await mp.postJson({
        type: ["h-entry"],
        properties: {
          content: ["Typo in a uid"],
          "mp-syndicate-text": [{ [MASTODON]: "fine", "https://social.example/@typo": "lost words" }],
        },
      });
      assert.equal(response.status, 400);
      const body = (await response.json()) as { error: string; error_description: string };
      assert.equal(body.error, "invalid_request");
      assert.match(body.error_description, /https:\/\/social\.example\/@typo/);
      assert.doesNotMatch(
        body.error_description.split("(")[0] ?? "",
        new RegExp(MASTODON.replace(/[/.]/g, "\\$&")),
      );
      assert.equal((await mp.server.host.posts?.list({ limit: 100 }))?.posts.length, before);
    });

    it("400 when it is not an object of texts", async () => {
      for (const value of [["just text"], [{ [MASTODON]: 42 }], [{ [MASTODON]: "   " }]]) {
        const response = await mp.postJson({
          type: ["h-entry"],
          properties: { content: ["x"], "mp-syndicate-text": value },
        });
        assert.equal(response.status, 400, JSON.stringify(value));
      }
    });

    it("an update replaces the texts, checked the same way", async () => {
      const url = await mp.create({ content: ["Update me"], "mp-syndicate-to": [MASTODON] });
      const replaced = await mp.postJson({
        action: "update",
        url,
        replace: { "mp-syndicate-text": [{ [MASTODON]: "New words" }] },
      });
      assert.equal(replaced.status, 204, await replaced.clone().text());
      assert.deepEqual((await stored(url))?.["mp-syndicate-text"], { [MASTODON]: "New words" });
      const unknown = await mp.postJson({
        action: "update",
        url,
        replace: { "mp-syndicate-text": [{ "https://nowhere.example/": "x" }] },
      });
      assert.equal(unknown.status, 400);
      assert.match(
        ((await unknown.json()) as { error_description: string }).error_description,
        /nowhere\.example/,
      );
    });
  });
}
