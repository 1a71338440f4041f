// Decision 0058: a connected Mastodon account's thread settings, saved on the Accounts page, change
// what the sandbox receives at once (one cut status, then a chain), and survive a reconnect; one
// post's choice in the preview beats the account's setting either way; what the preview shows is what
// the sandbox receives, byte for byte. Bad settings are refused with a localised message and change
// nothing; only the signed-in owner with the CSRF token may change them. Another instance sharing
// the database picks the settings up when it syncs. The configured target shows its values as
// managed by the file.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import type { ConnectedAccount } from "../../src/contract/accounts.ts";
import {
  closeAll,
  type EndpointServer,
  startEndpointServer,
  type Target,
} from "../endpoint/endpoint-server.ts";
import { engines } from "../helpers/databases.ts";

/** Three paragraphs of about 400 characters: over Mastodon's 500, three statuses as a thread. */
function longText(tag: string): string {
  const paragraph = (n: number) =>
    `${tag} part ${n}: ${"Herons on the canal, cormorants on the posts, a kingfisher on the lock gate. ".repeat(5).trim()}`;
  return [1, 2, 3].map(paragraph).join("\n\n");
}

interface PreviewJson {
  targets: {
    uid: string;
    thread_choice: boolean | null;
    preview: { text: string; cut: boolean; thread?: { text: string; count: number }[] } | null;
  }[];
}

const hex = (text: string) => Buffer.from(text, "utf8").toString("hex");

for (const engine of engines) {
  describe(`Thread settings of an account and of one post (${engine.name})`, () => {
    let sandbox: MastodonSandbox;
    let configured: Target;
    let app: EndpointServer;
    let session: { cookie: string; csrf: string };
    let account: ConnectedAccount;
    const token = `tok-${randomBytes(12).toString("hex")}`;

    before(async () => {
      sandbox = await startMastodonSandbox({ accessToken: token, user: "alice" });
      const configuredToken = randomBytes(12).toString("hex");
      const configuredSandbox = await startMastodonSandbox({ accessToken: configuredToken, user: "bob" });
      const { MastodonSyndicator } = await import("../../src/syndicators/mastodon/index.ts");
      const syndicator = () =>
        new MastodonSyndicator({
          url: configuredSandbox.url,
          user: "bob",
          accessToken: configuredToken,
          thread: true,
          threadMax: 7,
          threadPermalink: "first",
        });
      configured = { sandbox: configuredSandbox, uid: syndicator().info.uid, syndicator };
      app = await startEndpointServer({
        engine,
        targets: [configured],
        config: { fetch: { allowPrivate: true } },
        env: {},
      });
      session = await app.server.signIn();
      const connected = await form("/accounts/mastodon", { instance: sandbox.url, accessToken: token });
      assert.equal(connected.status, 303, await connected.text());
      const accounts = app.server.host.accounts;
      assert.ok(accounts);
      [account] = (await accounts.list()) as [ConnectedAccount];
      assert.ok(account);
    });
    after(async () => {
      await app?.close();
      await closeAll({ sandbox }, configured);
    });

    function form(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
      return fetch(`${app.endpoint}${path}`, {
        method: "POST",
        headers: {
          cookie: session.cookie,
          accept: "text/html",
          "content-type": "application/x-www-form-urlencoded",
          ...headers,
        },
        body: new URLSearchParams({ _csrf: session.csrf, ...fields }),
        redirect: "manual",
      });
    }
    const settings = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
      form(`/accounts/${account.id}/thread`, fields, headers);
    const accountsPage = async () => {
      const response = await fetch(`${app.endpoint}/accounts`, {
        headers: { cookie: session.cookie, accept: "text/html" },
      });
      assert.equal(response.status, 200);
      return response.text();
    };
    const stored = async () =>
      (
        await app.server.host.database?.query<{ settings: Record<string, unknown> }>(
          "SELECT settings FROM connected_accounts WHERE id = $1",
          [account.id],
        )
      )?.rows[0]?.settings;
    const preview = async (url: string) => {
      const response = await fetch(`${app.endpoint}/preview?url=${encodeURIComponent(url)}`, {
        headers: { authorization: `Bearer ${app.token}`, accept: "application/json" },
      });
      assert.equal(response.status, 200);
      const target = ((await response.json()) as PreviewJson).targets.find((t) => t.uid === account.uid);
      assert.ok(target?.preview);
      return { ...target, preview: target.preview };
    };
    /**
     * Sends the post (alone, or in a batch of every awaiting post, which reads what it sends a page
     * of posts at a time) and returns the statuses the account's sandbox received for it.
     */
    const send = async (url: string, tag: string, how: "alone" | "batch" = "alone") => {
      const response = await app.syndicate(how === "alone" ? `?source_url=${encodeURIComponent(url)}` : "");
      assert.equal(response.status, 200, await response.clone().text());
      return sandbox.statuses.filter((status) => status.text.startsWith(tag));
    };
    const postId = async (url: string) => (await app.server.host.posts?.findByUrl(url))?.id ?? "";
    /** Asserts that the sandbox got exactly what the preview showed, as one status or as a chain. */
    function assertSentAsPreviewed(
      statuses: { text: string; id: string; inReplyToId?: string | null }[],
      shown: { text: string; thread?: { text: string }[] },
    ) {
      const expected = shown.thread ? shown.thread.map((post) => post.text) : [shown.text];
      assert.deepEqual(
        statuses.map((status) => hex(status.text)),
        expected.map(hex),
        "sent as previewed",
      );
      for (const [index, status] of statuses.slice(1).entries())
        assert.equal(status.inReplyToId, statuses[index]?.id, "each a reply to the one before");
    }

    it("with the account's threads off, a long post is one cut status", async () => {
      const html = await accountsPage();
      assert.match(html, new RegExp(`action="/syndicate/accounts/${account.id}/thread"`));
      assert.doesNotMatch(html, new RegExp(`id="thread-${account.id}-on"[^>]*checked`));
      const tag = `A${Date.now()}`;
      const url = await app.createPost({ content: longText(tag), targets: [account.uid] });
      const shown = await preview(url);
      assert.equal(shown.preview.thread, undefined);
      assert.equal(shown.preview.cut, true);
      const statuses = await send(url, tag);
      assert.equal(statuses.length, 1);
      assertSentAsPreviewed(statuses, shown.preview);
    });

    it("refuses bad settings with a localised message, and only from the owner with the CSRF token", async () => {
      const before = await stored();
      const tooMany = await settings({ thread: "on", threadMax: "0", threadPermalink: "last" });
      assert.equal(tooMany.status, 400);
      assert.match(await tooMany.text(), /must be a whole number from 2 to 50/);
      const german = await settings(
        { thread: "on", threadMax: "abc", threadPermalink: "last" },
        { "accept-language": "de" },
      );
      assert.equal(german.status, 400);
      assert.match(await german.text(), /ganze Zahl von 2 bis 50/);
      const french = await settings(
        { thread: "on", threadMax: "5", threadPermalink: "middle" },
        { "accept-language": "fr" },
      );
      assert.equal(french.status, 400);
      assert.match(await french.text(), /le premier ou le dernier/);
      const json = await settings(
        { thread: "on", threadMax: "51", threadPermalink: "last" },
        { accept: "application/json" },
      );
      assert.equal(json.status, 400);
      assert.equal(((await json.json()) as { error: string }).error, "invalid_request");

      const noCsrf = await fetch(`${app.endpoint}/accounts/${account.id}/thread`, {
        method: "POST",
        headers: { cookie: session.cookie, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ thread: "on", threadMax: "5", threadPermalink: "last" }),
        redirect: "manual",
      });
      assert.equal(noCsrf.status, 403);
      const bearer = await fetch(`${app.endpoint}/accounts/${account.id}/thread`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${await app.server.token("create update delete media")}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ thread: "on", threadMax: "5", threadPermalink: "last" }),
      });
      assert.equal(bearer.status, 403);
      const unknown = await form(`/accounts/${"0".repeat(8)}-0000-4000-8000-${"0".repeat(12)}/thread`, {
        thread: "on",
        threadMax: "5",
        threadPermalink: "last",
      });
      assert.equal(unknown.status, 404);
      assert.deepEqual(await stored(), before, "nothing was saved");
    });

    it("turned on from the page, the next long post is a chain, as previewed, without a restart", async () => {
      const saved = await settings({
        thread: "on",
        threadMax: "10",
        threadNumbering: "on",
        threadPermalink: "first",
      });
      assert.equal(saved.status, 303);
      assert.equal(saved.headers.get("location"), `/syndicate/accounts#account-${account.id}`);
      assert.deepEqual(await stored(), {
        thread: true,
        threadMax: 10,
        threadNumbering: true,
        threadPermalink: "first",
      });
      const html = await accountsPage();
      assert.match(html, new RegExp(`id="thread-${account.id}-on"[^>]*checked`));

      const tag = `B${Date.now()}`;
      const url = await app.createPost({ content: longText(tag), targets: [account.uid] });
      const shown = await preview(url);
      const thread = shown.preview.thread ?? [];
      assert.equal(thread.length, 3, JSON.stringify(shown.preview));
      assert.ok(thread[0]?.text.endsWith(` 1/3`), "numbered");
      assert.match(thread[0]?.text ?? "", /https?:\/\/\S+ 1\/3$/, "the link in the first post");
      const statuses = await send(url, tag);
      assertSentAsPreviewed(statuses, shown.preview);
    });

    it("one post's choice beats the account's setting: off sends one cut status", async () => {
      const tag = `C${Date.now()}`;
      const url = await app.createPost({ content: longText(tag), targets: [account.uid] });
      const id = await postId(url);
      const chosen = await form(`/posts/${id}/thread`, { target_uid: account.uid, thread: "off" });
      assert.equal(chosen.status, 303);
      const shown = await preview(url);
      assert.equal(shown.thread_choice, false);
      assert.equal(shown.preview.thread, undefined, "cut and linked, not a thread");
      assert.equal(shown.preview.cut, true);
      const page = await fetch(`${app.endpoint}/posts/${id}/preview`, {
        headers: { cookie: session.cookie, accept: "text/html" },
      });
      assert.match(await page.text(), /id="preview-target-\d+-thread-off" name="thread" value="off" checked/);
      const statuses = await send(url, tag);
      assert.equal(statuses.length, 1);
      assertSentAsPreviewed(statuses, shown.preview);
    });

    it("with the account off, one post's choice on sends a chain; back to the account's, one status", async () => {
      const off = await settings({ threadMax: "10", threadPermalink: "last" });
      assert.equal(off.status, 303);
      const tag = `D${Date.now()}`;
      const url = await app.createPost({ content: longText(tag), targets: [account.uid] });
      const id = await postId(url);
      // Through the JSON API: a bearer token with the update scope, answered with the target's preview.
      const chosen = await fetch(`${app.endpoint}/posts/${id}/thread`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${app.token}`,
          accept: "application/json",
          "content-type": "application/json",
        },
        body: JSON.stringify({ target_uid: account.uid, thread: "on" }),
      });
      assert.equal(chosen.status, 200, await chosen.clone().text());
      const answered = (await chosen.json()) as PreviewJson["targets"][number];
      assert.equal(answered.thread_choice, true);
      const shown = await preview(url);
      assert.deepEqual(answered.preview, shown.preview as unknown);
      assert.equal(shown.preview.thread?.length, 3);
      assert.ok(!shown.preview.thread?.[0]?.text.endsWith("1/3"), "the account's numbering, now off");

      const reset = await form(`/posts/${id}/thread`, { target_uid: account.uid, thread: "account" });
      assert.equal(reset.status, 303);
      assert.equal((await preview(url)).thread_choice, null);
      assert.equal((await preview(url)).preview.thread, undefined, "the account's setting again: off");
      const on = await form(`/posts/${id}/thread`, { target_uid: account.uid, thread: "on" });
      assert.equal(on.status, 303);
      const statuses = await send(url, tag, "batch");
      assert.equal(statuses.length, 3);
      assertSentAsPreviewed(statuses, shown.preview);
    });

    it("refuses a bad choice, a target without threads, and a token without the update scope", async () => {
      const tag = `E${Date.now()}`;
      const url = await app.createPost({ content: longText(tag), targets: [account.uid] });
      const id = await postId(url);
      const bad = await form(`/posts/${id}/thread`, { target_uid: account.uid, thread: "maybe" });
      assert.equal(bad.status, 400);
      assert.match(await bad.text(), /choose a thread, one post, or the account/);
      const other = await form(
        `/posts/${id}/thread`,
        { target_uid: "https://nowhere.example/@x", thread: "on" },
        { accept: "application/json" },
      );
      assert.equal(other.status, 400);
      assert.match(
        ((await other.json()) as { error_description: string }).error_description,
        /This post has no such target/,
      );
      // A target that can make threads, but one this post does not name: nothing kept unseen.
      // The page is shown again with "This post has no such target", as for its text.
      const unnamed = await form(`/posts/${id}/thread`, { target_uid: configured.uid, thread: "on" });
      assert.equal(unnamed.status, 303);
      assert.equal(unnamed.headers.get("location"), `/syndicate/posts/${id}/preview`);
      assert.equal(
        (
          await app.server.host.database?.query(
            "SELECT 1 FROM syndication_thread_choices WHERE post_id = $1",
            [id],
          )
        )?.rows.length,
        0,
      );

      const createOnly = await fetch(`${app.endpoint}/posts/${id}/thread`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${await app.server.token("create")}`,
          accept: "application/json",
          "content-type": "application/json",
        },
        body: JSON.stringify({ target_uid: account.uid, thread: "on" }),
      });
      assert.equal(createOnly.status, 403);
      assert.equal((await preview(url)).thread_choice, null, "nothing was saved");
    });

    it("a reconnect keeps the settings, and another instance picks them up when it syncs", async () => {
      await settings({ thread: "on", threadMax: "4", threadPermalink: "last" });
      const again = await form("/accounts/mastodon", { instance: sandbox.url, accessToken: token });
      assert.equal(again.status, 303);
      const threadsNow = () =>
        app.server.host.syndicators.find((s) => s.info.uid === account.uid)?.threads?.threadMax;
      assert.equal(threadsNow(), 4, "kept across the reconnect");
      // Another instance writes the row (as its page would); this one sees it at its next sync.
      await app.server.host.database?.query(
        `UPDATE connected_accounts SET settings = settings || '{"threadMax": 6}'::jsonb WHERE id = $1`,
        [account.id],
      );
      await app.server.host.accounts?.sync();
      assert.equal(threadsNow(), 6);
    });

    it("shows the configured target's values as managed by the configuration file", async () => {
      const html = await accountsPage();
      const managed = html.slice(html.indexOf(`data-uid="${configured.uid}"`));
      assert.match(
        managed.slice(0, 600),
        /Long posts: threads of up to 7 posts, the link in the first post \(set in the configuration file; change them there\)/,
      );
      assert.doesNotMatch(html, /action="[^"]*\/accounts\/[^"]*\/thread"[^>]*bob/);
    });
  });
}
