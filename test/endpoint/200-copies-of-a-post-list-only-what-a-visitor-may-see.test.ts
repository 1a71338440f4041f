// Decision 0039: GET {mountPath}/copies?url= and /copies.json, public, for a site possekit does not
// write. They list a post's copies that exist (sent, not failed, not deleted) on targets whose copies
// anyone may see, of posts a visitor may see (published, not deleted, not private), own posts and
// posts from elsewhere alike; never an error text. 400 for a missing or malformed url, 404 where no
// such post is.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { engines } from "../helpers/databases.ts";
import {
  assertError,
  closeAll,
  closeServerThenTargets,
  type EndpointServer,
  startEndpointServer,
  startTarget,
  type Target,
} from "./endpoint-server.ts";

interface CopyJson {
  target: string;
  name: string;
  url: string;
  state: string;
  time: string;
}

for (const engine of engines) {
  describe(`GET /syndicate/copies lists only what a visitor may see (${engine.name})`, () => {
    let open: Target | undefined;
    let broken: Target | undefined;
    let followers: MastodonSandbox | undefined;
    let followersUid = "";
    let app: EndpointServer | undefined;

    before(async () => {
      open = await startTarget({ user: "open" });
      broken = await startTarget({ user: "broken" });
      const token = randomBytes(8).toString("hex");
      followers = await startMastodonSandbox({ accessToken: token, user: "friends" });
      const followersOnly = new MastodonSyndicator({
        url: followers.url,
        user: followers.user,
        accessToken: token,
        visibility: "private",
      });
      followersUid = followersOnly.info.uid;
      app = await startEndpointServer({
        engine,
        targets: [open, broken],
        syndicators: [followersOnly],
        pluginOptions: { targets: { checkAtStart: false }, schedule: { enabled: false } },
      });
    });
    after(async () => {
      await closeServerThenTargets(app, open, broken);
      await closeAll(followers ? { sandbox: followers } : undefined);
    });

    const copies = (url: string, init: RequestInit = {}) => {
      assert.ok(app);
      return fetch(`${app.endpoint}/copies?url=${encodeURIComponent(url)}`, init);
    };
    const everyCopy = async () => {
      assert.ok(app);
      const response = await fetch(`${app.endpoint}/copies.json`);
      assert.equal(response.status, 200);
      return ((await response.json()) as { posts: Record<string, CopyJson[]> }).posts;
    };
    const send = async (url: string) => {
      assert.ok(app);
      const response = await app.syndicate(`?source_url=${encodeURIComponent(url)}`);
      assert.equal(response.status, 200, await response.clone().text());
      return response.json();
    };
    const micropub = async (body: unknown, scope = "update") => {
      assert.ok(app);
      const token = await app.server.token(scope);
      const response = await fetch(`${app.url}/micropub`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      assert.ok(response.status < 300, await response.text());
    };

    it("200: the copy that exists, named and dated; not the failed one nor the followers-only one", async () => {
      assert.ok(app && open && broken && followers);
      broken.sandbox.setFailure(422, "Validation failed: secret words of the target");
      const post = await app.createPost({
        content: "Three targets, one public copy",
        targets: [open.uid, broken.uid, followersUid],
      });
      await send(post);
      assert.equal(open.sandbox.statuses.length, 1);
      assert.equal(followers.statuses.length, 1, "the followers-only copy was made");

      const response = await copies(post);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("access-control-allow-origin"), "*");
      assert.match(response.headers.get("cache-control") ?? "", /public, max-age=\d+/);
      const text = await response.text();
      // \b: the status, not the digits of a random port or a millisecond.
      assert.doesNotMatch(text, /secret words|Validation failed|\b422\b/, "no error text is shown");
      const body = JSON.parse(text) as { url: string; copies: CopyJson[] };
      assert.equal(body.url, post);
      assert.equal(body.copies.length, 1, text);
      const [copy] = body.copies;
      assert.ok(copy);
      assert.equal(copy.target, open.uid);
      assert.equal(copy.name, `@open@${new URL(open.sandbox.url).host}`);
      assert.equal(copy.url, open.sandbox.statuses[0]?.url);
      assert.equal(copy.state, "syndicated");
      assert.ok(Math.abs(Date.parse(copy.time) - Date.now()) < 10 * 60_000, copy.time);
      assert.deepEqual(Object.keys(copy).sort(), ["name", "state", "target", "time", "url"]);

      // The same in copies.json, under the post's URL.
      assert.deepEqual((await everyCopy())[post], body.copies);
      broken.sandbox.clearBehaviour();
    });

    it("200: the URL as a site generator writes it, with or without its trailing slash", async () => {
      assert.ok(app && open);
      const post = await app.createPost({ content: "Slash", targets: [open.uid] });
      await send(post);
      assert.ok(post.endsWith("/"), post);
      const response = await copies(post.replace(/\/$/, ""));
      assert.equal(response.status, 200);
      const body = (await response.json()) as { url: string; copies: CopyJson[] };
      assert.equal(body.url, post, "the post's own URL is answered");
      assert.equal(body.copies.length, 1);
    });

    it("200 with no copies for a post not sent yet; 404 for a URL where no post is", async () => {
      assert.ok(app && open);
      const post = await app.createPost({ content: "Not sent yet", targets: [open.uid] });
      const response = await copies(post);
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { url: post, copies: [] });
      assert.equal((await everyCopy())[post], undefined, "copies.json leaves out posts without copies");

      const missing = await copies(`${app.url}/notes/never-written/`, { headers: { accept: "text/html" } });
      assert.match(await assertError(missing, 404, "not_found"), /No post exists/);
    });

    it("404 for a post deleted or made a draft after it was sent; gone from copies.json", async () => {
      assert.ok(app && open);
      const deleted = await app.createPost({ content: "To be deleted", targets: [open.uid] });
      const drafted = await app.createPost({ content: "To be a draft", targets: [open.uid] });
      await send(deleted);
      await send(drafted);
      const before = await everyCopy();
      assert.equal(before[deleted]?.length, 1);
      assert.equal(before[drafted]?.length, 1);

      await micropub({ action: "delete", url: deleted }, "delete");
      await micropub({ action: "update", url: drafted, replace: { "post-status": ["draft"] } });
      await assertError(await copies(deleted), 404, "not_found");
      await assertError(await copies(drafted), 404, "not_found");
      const now = await everyCopy();
      assert.equal(now[deleted], undefined);
      assert.equal(now[drafted], undefined);
    });

    it("a post made private after it was sent is never shown; one made unlisted only to who asks for its URL", async () => {
      assert.ok(app && open);
      // Private and unlisted posts are never sent (docs/syndicating.md): these had their copies
      // made while public, and keep them when their visibility changes.
      const hidden = await app.createPost({ content: "Private", targets: [open.uid] });
      const unlisted = await app.createPost({ content: "Unlisted", targets: [open.uid] });
      await send(hidden);
      await send(unlisted);
      await micropub({ action: "update", url: hidden, replace: { visibility: ["private"] } });
      await micropub({ action: "update", url: unlisted, replace: { visibility: ["unlisted"] } });
      await assertError(await copies(hidden), 404, "not_found");
      const asked = await copies(unlisted);
      assert.equal(asked.status, 200);
      assert.equal(((await asked.json()) as { copies: CopyJson[] }).copies.length, 1);
      const all = await everyCopy();
      assert.equal(all[hidden], undefined);
      assert.equal(all[unlisted], undefined, "copies.json would list unlisted posts to anyone");
    });

    it("200 for a post from elsewhere, like the site's own", async () => {
      assert.ok(app && open);
      const known = app.server.host.knownPosts;
      assert.ok(known);
      const foreign = "https://blog.example/2026/from-the-feed/";
      await known.record({
        origin: "feed:blog",
        url: foreign,
        published: new Date(),
        properties: { content: "From the feed", "mp-syndicate-to": [open.uid] },
      });
      await send(foreign);
      const response = await copies(foreign);
      assert.equal(response.status, 200);
      const body = (await response.json()) as { copies: CopyJson[] };
      assert.equal(body.copies[0]?.url, open.sandbox.statuses.at(-1)?.url);
      assert.deepEqual((await everyCopy())[foreign], body.copies);
    });

    it("400 for a missing, malformed, non-http or repeated url, as JSON even to a browser", async () => {
      assert.ok(app);
      const html = { headers: { accept: "text/html" } };
      await assertError(await fetch(`${app.endpoint}/copies`, html), 400, "invalid_request");
      await assertError(await copies("not a url", html), 400, "invalid_request");
      await assertError(await copies("ftp://example.org/a", html), 400, "invalid_request");
      await assertError(await copies(`https://example.org/${"a".repeat(2100)}`), 400, "invalid_request");
      const twice = await fetch(
        `${app.endpoint}/copies?url=${encodeURIComponent(app.url)}&url=${encodeURIComponent(app.url)}`,
      );
      await assertError(twice, 400, "invalid_request");
    });
  });
}
