// Decision 0039: copies.json is fetched by a site generator at every build. It carries a strong
// ETag: sent back in If-None-Match, it answers 304 with no body while nothing changed; a new copy,
// or a copy that follows an edit, changes the tag (and the next request gets the new body). The
// one post's answer (copies?url=) does the same.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import {
  closeServerThenTargets,
  type EndpointServer,
  startWithOneTarget,
  type Target,
} from "./endpoint-server.ts";

for (const engine of engines) {
  describe(`GET /syndicate/copies.json answers 304 while unchanged (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;

    before(async () => {
      ({ target, app } = await startWithOneTarget(engine, {
        pluginOptions: { targets: { checkAtStart: false }, schedule: { enabled: false } },
      }));
    });
    after(() => closeServerThenTargets(app, target));

    const get = (path: string, etag?: string) => {
      assert.ok(app);
      return fetch(`${app.endpoint}${path}`, etag ? { headers: { "if-none-match": etag } } : {});
    };
    const send = async (url: string) => {
      assert.ok(app);
      const response = await app.syndicate(`?source_url=${encodeURIComponent(url)}`);
      assert.equal(response.status, 200, await response.text());
    };

    it("304 with the tag it gave; 200 with a new tag once a copy is added", async () => {
      assert.ok(app && target);
      const first = await app.createPost({ content: "First", targets: [target.uid] });
      await send(first);
      const answered = await get("/copies.json");
      assert.equal(answered.status, 200);
      const tag = answered.headers.get("etag");
      assert.match(tag ?? "", /^"[A-Za-z0-9_-]{43}"$/, "a strong tag");
      assert.ok(tag);
      const body = await answered.text();

      const unchanged = await get("/copies.json", tag);
      assert.equal(unchanged.status, 304);
      assert.equal(await unchanged.text(), "");
      assert.equal(unchanged.headers.get("etag"), tag);
      assert.match(unchanged.headers.get("cache-control") ?? "", /max-age/);
      // A cache that weakened the tag, or a list of tags, still matches; another tag does not.
      assert.equal((await get("/copies.json", `"other", W/${tag}`)).status, 304);
      assert.equal((await get("/copies.json", '"other"')).status, 200);

      // A post without a copy changes nothing a site links to.
      const second = await app.createPost({ content: "Second", targets: [target.uid] });
      assert.equal((await get("/copies.json", tag)).status, 304);

      await send(second);
      const changed = await get("/copies.json", tag);
      assert.equal(changed.status, 200, "the copy added changes the tag");
      const newTag = changed.headers.get("etag");
      assert.ok(newTag && newTag !== tag);
      const posts = ((await changed.json()) as { posts: Record<string, unknown[]> }).posts;
      assert.deepEqual(Object.keys(posts), [second, first], "newest post first");
      assert.notEqual(JSON.stringify({ posts }), body);
      assert.equal((await get("/copies.json", newTag)).status, 304);
    });

    it("the one post's answer: 304 while unchanged, 200 once its copy follows an edit", async () => {
      assert.ok(app && target);
      const post = await app.createPost({ content: "Before the edit", targets: [target.uid] });
      await send(post);
      const path = `/copies?url=${encodeURIComponent(post)}`;
      const answered = await get(path);
      const tag = answered.headers.get("etag");
      assert.ok(tag);
      assert.equal(
        ((await answered.json()) as { copies: Array<{ state: string }> }).copies[0]?.state,
        "syndicated",
      );
      assert.equal((await get(path, tag)).status, 304);

      const update = await fetch(`${app.url}/micropub`, {
        method: "POST",
        headers: { authorization: `Bearer ${app.token}`, "content-type": "application/json" },
        body: JSON.stringify({ action: "update", url: post, replace: { content: ["After the edit"] } }),
      });
      assert.equal(update.status, 204, await update.text());
      // The copy follows the edit in the next batch (here asked for, as the scheduler would start it).
      const batch = await app.syndicate();
      assert.equal(batch.status, 200, await batch.text());
      assert.equal(target.sandbox.statuses.at(-1)?.editedAt !== null, true, "the copy was edited");
      const edited = await get(path, tag);
      assert.equal(edited.status, 200);
      const copy = ((await edited.json()) as { copies: Array<{ state: string }> }).copies[0];
      assert.equal(copy?.state, "updated");
    });
  });
}
