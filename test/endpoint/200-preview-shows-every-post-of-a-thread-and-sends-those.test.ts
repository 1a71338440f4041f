// Decision 0055: with `thread: true`, a post longer than the target's limit is previewed as a thread,
// every post with its count, in the JSON answer and on the preview page; sending it posts exactly
// those to the Mastodon sandbox, byte for byte, each a reply to the one before.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { engines } from "../helpers/databases.ts";
import {
  closeServerThenTargets,
  type EndpointServer,
  startEndpointServer,
  type Target,
} from "./endpoint-server.ts";

const LIMIT = 100;
const content = [
  "Walking along the old canal this morning I counted herons, cormorants and a kingfisher.",
  "The kingfisher sat on the rail of the lock gate as if it owned it 🐦‍⬛ and did not move.",
  "東京の天気は晴れです。今日はとても暑いので、川沿いを歩きました。夕方には雨が降るそうです。",
].join("\n\n");

interface ThreadPreview {
  targets: { preview: { text: string; thread?: { text: string; count: number }[] } | null }[];
}

for (const engine of engines) {
  describe(`Preview of a thread, and what is sent (${engine.name})`, () => {
    let target: Target;
    let app: EndpointServer;
    before(async () => {
      const accessToken = randomBytes(12).toString("hex");
      const sandbox = await startMastodonSandbox({ accessToken });
      const syndicator = () =>
        new MastodonSyndicator({
          url: sandbox.url,
          user: sandbox.user,
          accessToken,
          characterLimit: LIMIT,
          thread: true,
          threadNumbering: true,
        });
      target = { sandbox, uid: syndicator().info.uid, syndicator };
      app = await startEndpointServer({ engine, targets: [target] });
    });
    after(() => closeServerThenTargets(app, target));

    it("JSON and the page show every post with its count; the sandbox receives exactly those", async () => {
      const url = await app.createPost({ content, targets: [target.uid] });
      const response = await fetch(`${app.endpoint}/preview?url=${encodeURIComponent(url)}`, {
        headers: { authorization: `Bearer ${app.token}`, accept: "application/json" },
      });
      assert.equal(response.status, 200);
      const preview = ((await response.json()) as ThreadPreview).targets[0]?.preview;
      const thread = preview?.thread ?? [];
      assert.ok(thread.length >= 3, JSON.stringify(preview));
      assert.equal(preview?.text, thread[0]?.text);
      thread.forEach((post, index) => {
        assert.ok(post.count <= LIMIT);
        assert.ok(post.text.endsWith(` ${index + 1}/${thread.length}`), post.text);
      });

      const id = (await app.server.host.posts?.findByUrl(url))?.id ?? "";
      const { cookie } = await app.server.signIn();
      const page = await fetch(`${app.endpoint}/posts/${id}/preview`, {
        headers: { cookie, accept: "text/html" },
      });
      assert.equal(page.status, 200);
      const html = await page.text();
      assert.match(html, new RegExp(`Sent as a thread of ${thread.length} posts`));
      for (const [index, post] of thread.entries()) {
        assert.ok(html.includes(`Post ${index + 1} of ${thread.length}`), `post ${index + 1} is labelled`);
        assert.ok(html.includes(`${post.count} / ${LIMIT}`), `post ${index + 1} shows its count`);
      }

      // Saving the first post as shown leaves the thread as it is (it would otherwise go alone).
      const { cookie: formCookie, csrf } = await app.server.signIn();
      const saved = await fetch(`${app.endpoint}/posts/${id}/text`, {
        method: "POST",
        redirect: "manual",
        headers: {
          cookie: formCookie,
          "content-type": "application/x-www-form-urlencoded",
          accept: "text/html",
        },
        body: new URLSearchParams({ _csrf: csrf, target_uid: target.uid, text: thread[0]?.text ?? "" }),
      });
      assert.ok(saved.status < 400, String(saved.status));
      const again = await fetch(`${app.endpoint}/preview?url=${encodeURIComponent(url)}`, {
        headers: { authorization: `Bearer ${app.token}`, accept: "application/json" },
      });
      const still = ((await again.json()) as ThreadPreview).targets[0]?.preview?.thread;
      assert.deepEqual(still, thread, "still the whole thread");

      const sent = await app.syndicate(`?source_url=${encodeURIComponent(url)}`);
      assert.equal(sent.status, 200, await sent.clone().text());
      const statuses = target.sandbox.statuses;
      assert.deepEqual(
        statuses.map((status) => Buffer.from(status.text, "utf8").toString("hex")),
        thread.map((post) => Buffer.from(post.text, "utf8").toString("hex")),
        "what was previewed is what was sent, post for post",
      );
      for (const [index, status] of statuses.slice(1).entries()) {
        assert.equal(status.inReplyToId, statuses[index]?.id);
      }
      const source = await app.source(url);
      assert.deepEqual(source.syndication, [statuses[0]?.url]);
    });
  });
}
