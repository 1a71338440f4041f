// Connecting an account on a server that speaks Mastodon's API but is not Mastodon, from the page:
// the software is found at connection (NodeInfo, else /api/v1/instance) and kept with the account,
// the Accounts page says it, and its rules follow. A Pixelfed account connected with a pasted token
// refuses a post without a photo for good, in the preview and the row, and no run sends it again;
// a GoToSocial account connected by OAuth gets the coarse scopes "read write" (it publishes no
// scope list) and its first copy. Neither gets thread settings (decision 0058): Pixelfed wants a
// photo on each status, GoToSocial ignores Idempotency-Key.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import type { PostResult } from "../../src/syndication/types.ts";
import { closeAll, type EndpointServer, startEndpointServer } from "../endpoint/endpoint-server.ts";
import { pgliteEngine } from "../helpers/databases.ts";
import { pressOnAuthorizePage } from "../helpers/mastodon-authorize.ts";

describe("Accounts on Pixelfed and GoToSocial", () => {
  let pixelfed: MastodonSandbox;
  let gotosocial: MastodonSandbox;
  let app: EndpointServer;
  let session: { cookie: string; csrf: string };

  before(async () => {
    pixelfed = await startMastodonSandbox({
      accessToken: "pixelfed-token",
      user: "alice",
      software: "pixelfed",
    });
    gotosocial = await startMastodonSandbox({ accessToken: "unused", user: "bob", software: "gotosocial" });
    app = await startEndpointServer({
      engine: pgliteEngine,
      targets: [],
      config: { fetch: { allowPrivate: true } },
      env: {},
    });
    session = await app.server.signIn();
  });
  after(async () => {
    await app?.close();
    await closeAll({ sandbox: pixelfed }, { close: () => gotosocial.close() });
  });

  const post = (path: string, fields: Record<string, string>) =>
    fetch(`${app.url}/syndicate/accounts${path}`, {
      method: "POST",
      headers: {
        cookie: session.cookie,
        accept: "text/html",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ _csrf: session.csrf, ...fields }),
      redirect: "manual",
    });
  const html = async (path: string) => {
    const response = await fetch(`${app.url}${path}`, {
      headers: { cookie: session.cookie, accept: "text/html" },
    });
    assert.equal(response.status, 200);
    return response.text();
  };
  /** The account has no thread settings form, and its route refuses them (404). */
  const assertNoThreadSettings = async (id: string) => {
    assert.ok(id);
    assert.doesNotMatch(await html("/syndicate/accounts"), new RegExp(`/accounts/${id}/thread`));
    const refused = await post(`/${id}/thread`, { thread: "on", threadMax: "5", threadPermalink: "last" });
    assert.equal(refused.status, 404);
  };
  const accountAt = async (url: string) =>
    ((await app.server.host.accounts?.list()) ?? []).find((account) => account.options.url === url);

  it("Pixelfed: a pasted token's account is found to be Pixelfed, and the page says so", async () => {
    const response = await post("/mastodon", { instance: pixelfed.url, accessToken: "pixelfed-token" });
    assert.equal(response.status, 303);
    const account = await accountAt(pixelfed.url);
    assert.equal(account?.options.software, "pixelfed");
    const page = await html("/syndicate/accounts");
    const row = page.slice(page.indexOf(`data-uid="${pixelfed.url}/@alice"`));
    assert.match(row.slice(0, row.indexOf("</li>")), /runs Pixelfed/);
    await assertNoThreadSettings(account?.id ?? "");
  });

  it("Pixelfed: a post without a photo is 'not sent: a photo is required' in the preview and the row, and never sent", async () => {
    const uid = `${pixelfed.url}/@alice`;
    const created = await app.createPost({ content: "Words only, no picture", targets: [uid] });
    const preview = await fetch(`${app.url}/syndicate/preview?url=${encodeURIComponent(created)}`, {
      headers: { authorization: `Bearer ${app.token}`, accept: "application/json" },
    });
    const shown = (await preview.json()) as { targets: { uid: string; preview: { not_sent?: string } }[] };
    assert.equal(shown.targets.find((target) => target.uid === uid)?.preview.not_sent, "photoRequired");

    const result = (await (
      await app.syndicate(`?source_url=${encodeURIComponent(created)}`)
    ).json()) as PostResult;
    const target = result.targets.find((candidate) => candidate.uid === uid);
    assert.equal(target?.status, "failed");
    assert.equal(target?.error, "Pixelfed: not sent: a photo is required");
    // Another run (the scheduler's, or a POST /syndicate) leaves a permanent refusal alone.
    await app.syndicate();
    assert.equal(
      pixelfed.requests.filter((request) => request.path === "/api/v1/statuses").length,
      0,
      "nothing was ever sent to Pixelfed",
    );
    const rows = await html("/syndicate");
    assert.match(rows, /Pixelfed: not sent: a photo is required/);
    // The preview page says it beside the text, in the page's language.
    const details = /<h3 class="post-title[^"]*"><a href="([^"]+)">Words only/.exec(rows)?.[1];
    assert.ok(details, "the row links to the post");
    assert.match(
      await html(`${details}/preview`),
      /Not sent: a photo is required\. Pixelfed takes only posts with a photo/,
    );
  });

  it("GoToSocial: connected by OAuth with read write, named on the page, and its first copy goes out", async () => {
    const start = await post("/mastodon/authorize", { instance: gotosocial.url });
    assert.equal(start.status, 200);
    const href = /<a href="([^"]+)" data-authorize-link>/
      .exec(await start.text())?.[1]
      ?.replace(/&amp;/g, "&");
    assert.ok(href);
    assert.equal(new URL(href).searchParams.get("scope"), "read write");
    const back = await pressOnAuthorizePage(href);
    const done = await fetch(back, {
      headers: { cookie: session.cookie, accept: "text/html" },
      redirect: "manual",
    });
    assert.equal(done.status, 303);
    assert.deepEqual(gotosocial.apps.at(-1)?.scopes, ["read", "write"]);

    const account = await accountAt(gotosocial.url);
    assert.equal(account?.options.software, "gotosocial");
    assert.match(await html("/syndicate/accounts"), /runs GoToSocial/);
    await assertNoThreadSettings(account?.id ?? "");

    const created = await app.createPost({ content: "Hello GoToSocial", targets: [account?.uid ?? ""] });
    // Nor a thread choice for one post: refused in the reader's language, nothing kept.
    const id = (await app.server.host.posts?.findByUrl(created))?.id;
    const choice = await fetch(`${app.url}/syndicate/posts/${id}/thread`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${app.token}`,
        accept: "application/json",
        "accept-language": "fr",
        "content-type": "application/json",
      },
      body: JSON.stringify({ target_uid: account?.uid, thread: "on" }),
    });
    assert.equal(choice.status, 400);
    assert.match(
      ((await choice.json()) as { error_description: string }).error_description,
      /n’envoie pas de fils/,
    );
    const result = (await (
      await app.syndicate(`?source_url=${encodeURIComponent(created)}`)
    ).json()) as PostResult;
    assert.equal(result.status, "syndicated", JSON.stringify(result.targets));
    assert.match(result.syndication[0] ?? "", new RegExp(`^${gotosocial.url}/@bob/statuses/\\d+$`));
    assert.equal(gotosocial.statuses.length, 1);
  });
});
