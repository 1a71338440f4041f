// Decision 0009: 400 invalid_request when source_url is not an absolute http(s) URL, is over
// 2,048 characters, or is given twice; nothing is sent.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import {
  assertError,
  closeServerThenTargets,
  type EndpointServer,
  startWithOneTarget,
  type Target,
} from "./endpoint-server.ts";

const form = (fields: Array<[string, string]>): RequestInit => ({
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields),
});
const json = (body: unknown): RequestInit => ({
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

for (const engine of engines) {
  describe(`POST /syndicate answers 400 to a malformed source_url (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    let post = "";
    before(async () => {
      ({ target, app } = await startWithOneTarget(engine));
      post = await app.createPost({ content: "waiting", targets: [target.uid] });
    });
    after(() => closeServerThenTargets(app, target));

    const q = (value: string) => `?source_url=${encodeURIComponent(value)}`;
    const cases: Array<[string, () => [string, RequestInit], RegExp]> = [
      ["a relative URL", () => [q("/notes/waiting/"), {}], /absolute http\(s\) URL/],
      ["an ftp URL", () => [q("ftp://example.org/notes/1"), {}], /absolute http\(s\) URL/],
      ["a javascript: URL", () => [q("javascript:alert(1)"), {}], /absolute http\(s\) URL/],
      ["an empty value", () => [q(""), {}], /absolute http\(s\) URL/],
      [
        "a URL of 2,049 characters",
        () => [q(`${post}?${"x".repeat(2049 - post.length - 1)}`), {}],
        /at most 2048 characters/,
      ],
      ["the query parameter twice", () => [`${q(post)}&source_url=${encodeURIComponent(post)}`, {}], /once/],
      ["the query and a form body", () => [q(post), form([["source_url", post]])], /once/],
      [
        "the form field twice",
        () => [
          "",
          form([
            ["source_url", post],
            ["source_url", post],
          ]),
        ],
        /once/,
      ],
      [
        "source_url and syndication.source_url",
        () => ["", json({ source_url: post, syndication: { source_url: post } })],
        /once/,
      ],
      ["a JSON number", () => ["", json({ source_url: 42 })], /string/],
      // The peer's old parameter: read as "no source_url" it would start a batch of every post.
      ["url instead of source_url", () => [`?url=${encodeURIComponent(post)}`, {}], /source_url/],
      ["url in a form body", () => ["", form([["url", post]])], /source_url/],
      ["a JSON body that is not an object", () => ["", json([post])], /object/],
      // Naming the post in a shape not understood must never start a batch of every post.
      ["syndication as a string", () => ["", json({ syndication: post })], /syndication must be an object/],
      ["syndication as a list", () => ["", json({ syndication: [post] })], /syndication must be an object/],
      [
        "syndication with a key not understood",
        () => ["", json({ syndication: { href: post } })],
        /syndication\.href is not understood/,
      ],
      [
        "syndication.url and syndication.source_url",
        () => ["", json({ syndication: { url: post, source_url: post } })],
        /once/,
      ],
    ];

    for (const [what, request, description] of cases) {
      it(`refuses ${what}`, async () => {
        assert.ok(app && target);
        const answer = await assertError(await app.syndicate(...request()), 400, "invalid_request");
        assert.match(answer, description);
        assert.equal(target.sandbox.requests.length, 0, "nothing is sent");
      });
    }

    it("accepts a URL of exactly 2,048 characters (and finds no post there)", async () => {
      assert.ok(app);
      const long = `${post}?${"x".repeat(2048 - post.length - 1)}`;
      assert.equal(long.length, 2048);
      await assertError(await app.syndicate(q(long)), 404, "not_found");
    });

    it("leaves the post awaiting", async () => {
      assert.ok(app && target);
      assert.deepEqual((await app.source(post))["mp-syndicate-to"], [target.uid]);
    });
  });
}
