// The remote-Micropub source's client, over real HTTP against another possekit's Micropub endpoint
// (which passes the micropub.rocks server tests): it lists the posts page by page with their
// mp-syndicate-to, reads one by URL, writes links back as Indiekit's own syndicate endpoint does,
// and sorts what goes wrong into the user's to fix (a refused token) and the moment's (a server down).
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { after, before, describe, it } from "node:test";
import { MicropubClient } from "../../src/sources/micropub/micropub-client.ts";
import { MicropubSourceError } from "../../src/sources/micropub/micropub-source-error.ts";
import { createPostAt } from "../helpers/micropub-create.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

const MASTODON = "https://social.example/@me";
const BLUESKY = "https://bsky.example/profile/me";

async function failure(promise: Promise<unknown>): Promise<MicropubSourceError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof MicropubSourceError, String(error));
    return error;
  }
  assert.fail("expected a MicropubSourceError");
}

describe("Micropub client against another possekit", () => {
  let remote: TestServer;
  let token: string;
  const newestFirst: string[] = [];
  const client = (secret: () => string | undefined = () => token) =>
    new MicropubClient({
      endpoint: `${remote.url}/micropub`,
      token: secret,
      tokenSetting: "MICROPUB_TOKEN",
      fetchPolicy: {},
    });

  before(async () => {
    remote = await startTestServer({ config: { plugins: [] } });
    token = await remote.token("create update");
    for (let day = 1; day <= 5; day++) {
      const url = await createPostAt(remote.url, token, {
        content: `Day ${day}`,
        targets: day % 2 === 1 ? [MASTODON, BLUESKY] : [],
        published: `2024-03-0${day}T12:00:00Z`,
      });
      newestFirst.unshift(url);
    }
  });
  after(() => remote.close());

  it("lists every post newest first, page by page, with its mp-syndicate-to", async () => {
    const pages = [];
    for await (const page of client().pages({ limit: 2 })) pages.push(page);
    assert.deepEqual(
      pages.map((page) => page.posts.map((post) => post.url)),
      [newestFirst.slice(0, 2), newestFirst.slice(2, 4), newestFirst.slice(4)],
    );
    const posts = pages.flatMap((page) => page.posts);
    const first = posts.find((post) => post.url === newestFirst[4]);
    assert.deepEqual(first?.properties["mp-syndicate-to"], [MASTODON, BLUESKY]);
    assert.equal(first?.properties.type, "entry");
    assert.equal(first?.properties.content, "Day 1");
    assert.equal(first?.properties.published, "2024-03-01T12:00:00Z");
    assert.equal(first?.deleted, false);
  });

  it("stops at maxPosts", async () => {
    const pages = [];
    for await (const page of client().pages({ limit: 2, maxPosts: 3 })) pages.push(page);
    assert.equal(pages.length, 2);
  });

  it("reads one post by URL; an unknown URL is null", async () => {
    const url = newestFirst[0] ?? "";
    const post = await client().read(url);
    assert.equal(post?.url, url);
    assert.equal(post?.properties.content, "Day 5");
    assert.equal(await client().read(`${remote.url}/nothing-here`), null);
  });

  it("writes a link back and drops the target done: the remote post has the link and only the other target", async () => {
    const url = newestFirst[4] ?? "";
    const copy = "https://social.example/@me/111";
    await client().update(url, { add: { syndication: [copy] }, replace: { "mp-syndicate-to": [BLUESKY] } });
    const post = await client().read(url);
    assert.deepEqual(post?.properties.syndication, [copy]);
    assert.deepEqual(post?.properties["mp-syndicate-to"], [BLUESKY]);
    await client().update(url, { delete: ["mp-syndicate-to"] });
    assert.equal((await client().read(url))?.properties["mp-syndicate-to"], undefined);
  });

  it("a token the remote refuses: a configuration error naming the variable and the endpoint, never the token", async () => {
    const wrong = "not-a-token-the-remote-issued";
    const error = await failure(client(() => wrong).listPage());
    assert.equal(error.kind, "refused");
    assert.equal(error.status, 401);
    assert.ok(error.isConfiguration);
    assert.match(
      error.message,
      new RegExp(`^the token in MICROPUB_TOKEN was refused by ${remote.url}/micropub: `),
    );
    assert.ok(!error.message.includes(wrong));
    const none = await failure(client(() => undefined).read(newestFirst[0] ?? ""));
    assert.equal(none.kind, "refused");
    assert.match(none.message, /set MICROPUB_TOKEN/);
  });

  it("a token without the update scope is refused for the update (403)", async () => {
    const draftOnly = await remote.token("draft");
    const error = await failure(
      client(() => draftOnly).update(newestFirst[0] ?? "", { add: { syndication: ["https://x.example/1"] } }),
    );
    assert.equal(error.kind, "refused");
    assert.ok(error.status === 401 || error.status === 403, String(error.status));
  });
});

describe("Micropub client against a server that fails", () => {
  let server: Server;
  let url: string;
  let answer: (res: import("node:http").ServerResponse) => void = (res) => res.end();
  before(async () => {
    server = createServer((_req, res) => answer(res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/micropub`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const client = (options: { maxBytes?: number } = {}) =>
    new MicropubClient({
      endpoint: url,
      token: () => "t",
      tokenSetting: "MICROPUB_TOKEN",
      fetchPolicy: {},
      ...options,
    });

  it("503 with Retry-After: unavailable, asked again later", async () => {
    answer = (res) => res.writeHead(503, { "retry-after": "120" }).end("down for maintenance");
    const error = await failure(client().listPage());
    assert.equal(error.kind, "unavailable");
    assert.equal(error.retryAfterSeconds, 120);
    assert.equal(error.isConfiguration, false);
  });

  it("nobody listening: unavailable", async () => {
    const closed = new MicropubClient({
      endpoint: "http://127.0.0.1:9/micropub",
      token: () => "t",
      tokenSetting: "MICROPUB_TOKEN",
      fetchPolicy: {},
    });
    assert.equal((await failure(closed.listPage())).kind, "unavailable");
  });

  it("an HTML page instead of Micropub, a list without items, too large an answer: invalid", async () => {
    answer = (res) => res.writeHead(200, { "content-type": "text/html" }).end("<html>hello</html>");
    const notJson = await failure(client().listPage());
    assert.match(notJson.message, /not JSON/);
    // Invalid, not a passing outage: the link write-back gives up on such an answer instead of
    // throwing it to be retried (link-write-back.ts).
    assert.equal(notJson.kind, "invalid");
    answer = (res) => res.writeHead(200, { "content-type": "application/json" }).end('{"posts": []}');
    assert.match((await failure(client().listPage())).message, /without an "items" list/);
    answer = (res) => res.writeHead(200).end(JSON.stringify({ items: [], pad: "x".repeat(5000) }));
    assert.equal((await failure(client({ maxBytes: 1000 }).listPage())).kind, "invalid");
  });

  it("items that are not posts with an http(s) URL are skipped, and __proto__ never reaches an object", async () => {
    answer = (res) =>
      res.writeHead(200).end(
        `{"items": [{"type": ["h-entry"], "properties": {"url": ["javascript:alert(1)"]}}, {"nope": 1},
          {"type": ["h-entry"], "properties": {"url": ["https://a.example/1"], "__proto__": [{"polluted": true}]}}]}`,
      );
    const page = await client().listPage();
    assert.equal(page.skipped, 2);
    assert.equal(page.posts[0]?.url, "https://a.example/1");
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.getPrototypeOf(page.posts[0]?.properties), Object.prototype);
  });
});
