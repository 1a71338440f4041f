// Connecting Threads from the page, through a whole server and the Threads stand-in
// (dev/sandbox/threads-server.ts): the owner saves their Meta app once (its secret never shown
// again), presses Connect with Threads, allows on the Authorization Window, and the account is
// stored with a 60-day token (code → short-lived → long-lived). Its first copy goes out by itself,
// and the page then shows the account's 250-a-day publishing quota. Neither the log nor a dump of
// the database holds the app secret, the token or the code.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startThreadsSandbox, type ThreadsSandbox } from "../../dev/sandbox/threads-server.ts";
import type { AccountFlow } from "../../src/contract/account-flow.ts";
import { EndpointSyndicate } from "../../src/index.ts";
import { mastodonOAuthFlow } from "../../src/syndicators/mastodon/oauth/mastodon-oauth-flow.ts";
import { threadsOAuthFlowFor } from "../../src/syndicators/threads/oauth/threads-oauth-flow.ts";
import { pgliteEngine } from "../helpers/databases.ts";
import { until } from "../helpers/eventually.ts";
import { createPostAt } from "../helpers/micropub-create.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

const APP_ID = "1234567890123456";
const APP_SECRET = "meta-app-secret-0123456789abcdef";

describe("Connect Threads from the page", () => {
  let sandbox: ThreadsSandbox;
  let server: TestServer;
  const log: string[] = [];
  const base = "/syndicate/accounts/threads";

  before(async () => {
    sandbox = await startThreadsSandbox({ appId: APP_ID, appSecret: APP_SECRET, username: "alice" });
    const endpoints = { apiUrl: sandbox.apiUrl, authorizeUrl: sandbox.authorizeUrl };
    // The endpoint as shipped, its Threads flow pointed at the stand-in rather than at Meta.
    class EndpointWithStandIn extends EndpointSyndicate {
      protected override accountFlows: readonly AccountFlow[] = [
        mastodonOAuthFlow,
        threadsOAuthFlowFor(endpoints),
      ];
    }
    server = await startTestServer({
      engine: pgliteEngine,
      config: { plugins: [], fetch: { allowPrivate: true }, application: { rateLimit: { signIn: 100 } } },
      plugins: [new EndpointWithStandIn({}, { env: process.env })],
      log: (line) => log.push(line),
    });
  });
  after(async () => {
    await server?.close();
    await sandbox?.close();
  });

  const page = async (owner: { cookie: string }) => {
    const response = await fetch(`${server.url}/syndicate/accounts`, {
      headers: { cookie: owner.cookie, accept: "text/html" },
    });
    assert.equal(response.status, 200);
    return response.text();
  };
  const post = (owner: { cookie: string; csrf: string }, path: string, fields: Record<string, string>) =>
    fetch(`${server.url}${base}${path}`, {
      method: "POST",
      headers: {
        cookie: owner.cookie,
        "content-type": "application/x-www-form-urlencoded",
        accept: "text/html",
      },
      body: new URLSearchParams({ ...fields, _csrf: owner.csrf }),
      redirect: "manual",
    });

  it("asks once for the Meta app, connects by OAuth, sends a first copy and shows the quota", async () => {
    const owner = await server.signIn();
    const empty = await page(owner);
    const redirectUri = /<code data-redirect-uri>([^<]+)<\/code>/.exec(empty)?.[1];
    assert.equal(redirectUri, `${server.url}${base}/callback`);
    assert.ok(!empty.includes(`action="${base}/authorize"`), "no Connect button before the app is saved");

    // Refused app fields say what to write, and keep nothing.
    const refused = await post(owner, "/app", { appId: "not-digits", appSecret: APP_SECRET });
    assert.equal(refused.status, 400);
    assert.match(await refused.text(), /Threads app ID \(digits only\)/);

    const saved = await post(owner, "/app", { appId: APP_ID, appSecret: APP_SECRET });
    assert.equal(saved.status, 303);
    const withApp = await page(owner);
    assert.match(withApp, /data-threads-app="set"/);
    assert.ok(!withApp.includes(APP_SECRET) && !withApp.includes(APP_ID), "the app is never shown back");

    sandbox.redirectUris.push(redirectUri ?? "");
    const start = await post(owner, "/authorize", {});
    assert.equal(start.status, 200);
    const href = /<a href="([^"]+)" data-authorize-link>/
      .exec(await start.text())?.[1]
      ?.replace(/&amp;/g, "&");
    assert.ok(href);
    const authorize = new URL(href);
    assert.equal(authorize.origin + authorize.pathname, sandbox.authorizeUrl);
    assert.equal(authorize.searchParams.get("client_id"), APP_ID);
    assert.equal(authorize.searchParams.get("scope"), "threads_basic,threads_content_publish,threads_delete");
    assert.equal(authorize.searchParams.get("redirect_uri"), redirectUri);

    // The owner presses Allow on the Authorization Window.
    assert.equal((await fetch(authorize)).status, 200);
    const allowed = await fetch(sandbox.authorizeUrl, {
      method: "POST",
      body: new URLSearchParams({ ...Object.fromEntries(authorize.searchParams), decision: "allow" }),
      redirect: "manual",
    });
    const back = new URL(allowed.headers.get("location") ?? "");
    const code = back.searchParams.get("code") ?? "";
    assert.ok(code);
    const answer = await fetch(back, {
      headers: { cookie: owner.cookie, accept: "text/html" },
      redirect: "manual",
    });
    assert.equal(answer.status, 303, log.slice(-5).join("\n"));
    assert.equal(answer.headers.get("location"), "/syndicate/accounts");

    const [account] = (await server.host.accounts?.list()) ?? [];
    assert.ok(account);
    assert.equal(account.type, "threads");
    assert.equal(account.uid, "https://www.threads.com/@alice");
    assert.deepEqual(Object.keys(account.secretsSetAt), ["accessToken"]);
    const long = sandbox.tokens.filter((token) => token.kind === "long");
    assert.equal(long.length, 1, "the short-lived token was exchanged for a long-lived one");
    assert.deepEqual(long[0]?.scopes, ["threads_basic", "threads_content_publish", "threads_delete"]);

    const token = await server.token("create update");
    await createPostAt(server.url, token, { content: "First copy to Threads", targets: [account.uid] });
    await until("the first copy reaches Threads", () =>
      sandbox.posts.some((copy) => copy.text.startsWith("First copy to Threads")),
    );
    const withQuota = await page(owner);
    assert.match(withQuota, /Publishing quota: 1 of 250 posts used in the last 24 hours\./);

    const database = server.host.database;
    assert.ok(database);
    // The token the copy went out with is kept sealed by the syndicator, to be refreshed in place.
    const kept = await database.query<{ user_id: string; token_sealed: string }>(
      "SELECT user_id, token_sealed FROM threads_tokens",
    );
    assert.deepEqual(
      kept.rows.map((row) => row.user_id),
      ["17841400000000001"],
    );
    const tables = await database.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
    );
    let dump = "";
    for (const { table_name } of tables.rows)
      dump += JSON.stringify((await database.query(`SELECT * FROM "${table_name}"`)).rows);
    assert.ok(dump.length > 1000, "the dump read the tables");
    for (const secret of [APP_SECRET, long[0]?.token ?? "-", code]) {
      assert.ok(!dump.includes(secret), "a secret is in the database dump");
      assert.ok(!log.join("\n").includes(secret), "a secret is in the log");
    }
  });

  it("refuses a replayed callback and an access token", async () => {
    const owner = await server.signIn();
    const replay = await fetch(`${server.url}${base}/callback?state=made-up&code=x`, {
      headers: { cookie: owner.cookie, accept: "text/html" },
      redirect: "manual",
    });
    assert.equal(replay.status, 400);
    const token = await server.token("create update");
    const withToken = await fetch(`${server.url}${base}/authorize`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(withToken.status, 403);
  });

  it("Cancel on Threads brings the owner back with a warning and stores nothing; a form without its CSRF token is refused", async () => {
    const owner = await server.signIn();
    const stored = (await server.host.accounts?.list())?.length ?? 0;
    const start = await post(owner, "/authorize", {});
    const href = /<a href="([^"]+)" data-authorize-link>/
      .exec(await start.text())?.[1]
      ?.replace(/&amp;/g, "&");
    assert.ok(href);
    const cancelled = await fetch(sandbox.authorizeUrl, {
      method: "POST",
      body: new URLSearchParams({ ...Object.fromEntries(new URL(href).searchParams), decision: "deny" }),
      redirect: "manual",
    });
    const back = new URL(cancelled.headers.get("location") ?? "");
    assert.equal(back.searchParams.get("error"), "access_denied");
    const answer = await fetch(back, {
      headers: { cookie: owner.cookie, accept: "text/html" },
      redirect: "manual",
    });
    assert.equal(answer.status, 303);
    assert.equal((await server.host.accounts?.list())?.length ?? 0, stored);

    const forged = await fetch(`${server.url}${base}/app`, {
      method: "POST",
      headers: {
        cookie: owner.cookie,
        "content-type": "application/x-www-form-urlencoded",
        accept: "text/html",
      },
      body: new URLSearchParams({ appId: "999999999", appSecret: "another-secret-value" }),
      redirect: "manual",
    });
    assert.equal(forged.status, 403);
  });
});
