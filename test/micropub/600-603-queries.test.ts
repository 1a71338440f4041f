// micropub.rocks server cases 600-603: configuration, syndication targets and source queries.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import { BLUESKY, errorOf, MASTODON, type MicropubServer, startMicropubServer } from "./micropub-server.ts";

const targets = [
  { uid: MASTODON, name: "Mastodon", service: { name: "Mastodon", url: "https://social.example/" } },
  { uid: BLUESKY, name: "Bluesky" },
];

for (const engine of engines) {
  describe(`Micropub queries (${engine.name})`, () => {
    let mp: MicropubServer;
    before(async () => {
      mp = await startMicropubServer(engine);
    });
    after(() => mp.close());

    it("600 answers the configuration query, with the targets and the media endpoint", async () => {
      const response = await mp.query("q=config");
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
      const config = (await response.json()) as Record<string, unknown>;
      assert.deepEqual(config["syndicate-to"], targets);
      assert.equal(config["media-endpoint"], `${mp.endpoint}/media`);
      assert.deepEqual(config.q, ["config", "syndicate-to", "post-types", "category", "source"]);
      assert.deepEqual(
        (config["post-types"] as { type: string }[]).map((each) => each.type),
        ["note", "article", "photo", "reply", "like", "repost", "bookmark"],
      );
    });

    it("601 answers the syndication target query", async () => {
      const response = await mp.query("q=syndicate-to");
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { "syndicate-to": targets });
    });

    it("602 answers the source query with all properties", async () => {
      const url = await mp.create({
        content: ["Test of querying the endpoint for the source content"],
        category: ["micropub", "test"],
      });
      const response = await mp.query(`q=source&url=${encodeURIComponent(url)}`);
      assert.equal(response.status, 200);
      const body = (await response.json()) as { type: string[]; properties: Record<string, unknown[]> };
      assert.deepEqual(body.type, ["h-entry"]);
      assert.deepEqual(body.properties.content, ["Test of querying the endpoint for the source content"]);
      assert.deepEqual(body.properties.category, ["micropub", "test"]);
      assert.deepEqual(body.properties.url, [url]);
    });

    it("603 answers the source query with only the properties asked for", async () => {
      const url = await mp.create({
        content: ["Test of querying the endpoint for the source content"],
        category: ["micropub", "test"],
        name: ["Not asked for"],
      });
      const response = await mp.query(
        `q=source&url=${encodeURIComponent(url)}&properties%5B%5D=content&properties%5B%5D=category`,
      );
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), {
        properties: {
          content: ["Test of querying the endpoint for the source content"],
          category: ["micropub", "test"],
        },
      });
      const single = await mp.query(`q=source&url=${encodeURIComponent(url)}&properties=name`);
      assert.deepEqual(await single.json(), { properties: { name: ["Not asked for"] } });
    });

    it("answers 400 invalid_request for an unknown URL, an unknown query and no query", async () => {
      for (const params of ["q=source&url=https%3A%2F%2Fexample.org%2Fnotes%2Fnope%2F", "q=everything", ""]) {
        const error = await errorOf(await mp.query(params));
        assert.equal(error.status, 400, params);
        assert.equal(error.error, "invalid_request");
      }
    });
  });
}

for (const engine of engines) {
  describe(`Micropub queries clients ask on start (${engine.name})`, () => {
    let mp: MicropubServer;
    before(async () => {
      mp = await startMicropubServer(engine);
    });
    after(() => mp.close());

    it("q=post-types lists the kinds of post", async () => {
      const response = await mp.query("q=post-types");
      assert.equal(response.status, 200);
      const body = (await response.json()) as { "post-types": { type: string; name: string }[] };
      assert.deepEqual(body["post-types"][0], { type: "note", name: "Note" });
    });

    it("q=category lists the categories used so far, once each, alphabetically; filter narrows them", async () => {
      await mp.create({ content: ["a"], category: ["IndieWeb", "cats"] });
      await mp.create({ content: ["b"], category: ["cats", "100%_real"] });
      await mp.create({ content: ["c"], category: [{ type: ["h-card"], properties: { name: ["Alice"] } }] });
      const deleted = await mp.create({ content: ["d"], category: ["gone"] });
      assert.ok((await mp.postForm({ action: "delete", url: deleted })).ok);

      const all = (await (await mp.query("q=category")).json()) as { categories: string[] };
      assert.deepEqual(all.categories, ["100%_real", "cats", "IndieWeb"].sort());
      const filtered = (await (await mp.query("q=category&filter=indie")).json()) as { categories: string[] };
      assert.deepEqual(filtered.categories, ["IndieWeb"]);
      // LIKE's wildcards in the filter are matched as themselves.
      const literal = (await (await mp.query("q=category&filter=%25_")).json()) as { categories: string[] };
      assert.deepEqual(literal.categories, ["100%_real"]);
    });
  });
}
