// Connecting Mastodon from the page, through a whole server and the sandbox Mastodon: the owner's
// POST sends the browser to the instance with PKCE S256, Authorize brings it back, the account is
// stored and its first copy goes out with no restart. Only the signed-in owner's browser may do it:
// a replayed, expired or another session's state is refused with a localised page and stores
// nothing; a token of any scope gets 403; the start needs the CSRF token; the routes are
// rate-limited. Neither the server's whole log nor a dump of its database holds the token, the
// client secret or the code.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { EndpointSyndicate } from "../../src/index.ts";
import { pgliteEngine } from "../helpers/databases.ts";
import { until } from "../helpers/eventually.ts";
import { pressOnAuthorizePage } from "../helpers/mastodon-authorize.ts";
import { createPostAt } from "../helpers/micropub-create.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

describe("Connect Mastodon from the page", () => {
  let sandbox: MastodonSandbox;
  let server: TestServer;
  let now = Date.parse("2026-11-28T10:00:00Z");
  const log: string[] = [];
  const connectPath = "/syndicate/accounts/mastodon";

  before(async () => {
    sandbox = await startMastodonSandbox({ accessToken: "configured-token-unused", user: "alice" });
    server = await startTestServer({
      engine: pgliteEngine,
      // Each test signs in afresh (a session of its own, a budget of connections of its own).
      config: { plugins: [], fetch: { allowPrivate: true }, application: { rateLimit: { signIn: 100 } } },
      plugins: [new EndpointSyndicate({}, { env: process.env, now: () => now })],
      log: (line) => log.push(line),
    });
  });
  after(async () => {
    await server?.close();
    await sandbox?.close();
  });
  beforeEach(async () => {
    for (const account of (await server.host.accounts?.list()) ?? [])
      await server.host.accounts?.remove(account.id);
  });

  const accountsStored = async () => (await server.host.accounts?.list())?.length ?? 0;

  /**
   * The owner's POST of the form; returns the instance's authorize URL the answer moves on to (a
   * page with a refresh and a link: the page's CSP keeps a form from redirecting to another site).
   */
  async function start(session: { cookie: string; csrf: string }, instance = sandbox.url): Promise<URL> {
    const response = await fetch(`${server.url}${connectPath}/authorize`, {
      method: "POST",
      headers: {
        cookie: session.cookie,
        "content-type": "application/x-www-form-urlencoded",
        accept: "text/html",
      },
      body: new URLSearchParams({ instance, _csrf: session.csrf }),
      redirect: "manual",
    });
    const html = await response.text();
    assert.equal(response.status, 200, html);
    const href = /<a href="([^"]+)" data-authorize-link>/.exec(html)?.[1]?.replace(/&amp;/g, "&");
    assert.ok(href, "the page links to the instance");
    assert.ok(html.includes(`<meta http-equiv="refresh" content="0;url=${href.replace(/&/g, "&amp;")}">`));
    return new URL(href);
  }

  const callback = (session: { cookie: string }, url: URL, language = "en") =>
    fetch(url, {
      headers: { cookie: session.cookie, accept: "text/html", "accept-language": language },
      redirect: "manual",
    });

  it("goes from the typed instance to a first copy sent from the new account, with no restart", async () => {
    const owner = await server.signIn();
    const authorize = await start(owner, `${sandbox.url}/@alice`);
    assert.equal(authorize.origin, sandbox.url);
    assert.equal(authorize.searchParams.get("code_challenge_method"), "S256");
    assert.equal(authorize.searchParams.get("redirect_uri"), `${server.url}${connectPath}/callback`);
    const back = await pressOnAuthorizePage(authorize);
    assert.equal(back.origin + back.pathname, `${server.url}${connectPath}/callback`);
    const answer = await callback(owner, back);
    assert.equal(answer.status, 303);
    assert.equal(answer.headers.get("location"), "/syndicate/accounts");

    // The flash says whose account it is, on the next page.
    const flashCookie = answer.headers
      .getSetCookie()
      .map((cookie) => cookie.split(";")[0])
      .join("; ");
    const page = await fetch(`${server.url}/syndicate`, {
      headers: { cookie: `${owner.cookie}; ${flashCookie}`, accept: "text/html" },
    });
    assert.match(
      await page.text(),
      new RegExp(`Connected as @alice@${new URL(sandbox.url).host.replace(".", "\\.")}`),
    );

    const [account] = (await server.host.accounts?.list()) ?? [];
    assert.ok(account, "the account is stored");
    assert.equal(account.uid, `${sandbox.url}/@alice`);
    assert.deepEqual(Object.keys(account.secretsSetAt).sort(), ["accessToken", "clientId", "clientSecret"]);

    // The post goes out by itself: the scheduler sends it to the account just connected.
    const token = await server.token("create update");
    await createPostAt(server.url, token, { content: "First copy", targets: [account.uid] });
    await until("the first copy reaches the sandbox", () =>
      sandbox.statuses.some((status) => status.text.startsWith("First copy")),
    );
    const issued = sandbox.tokens.find((issuedToken) => issuedToken.user === "alice");
    assert.ok(issued, "the copy went out with the token the OAuth flow obtained");
    assert.equal(
      sandbox.requests.filter((request) => request.path === "/api/v1/statuses").at(-1)?.authorized,
      true,
    );

    // The whole log and the database hold neither the token nor the client's secret nor the code.
    const app = sandbox.apps[0];
    assert.ok(app);
    const database = server.host.database;
    assert.ok(database);
    const tables = await database.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
    );
    let dump = "";
    for (const { table_name } of tables.rows)
      dump += JSON.stringify((await database.query(`SELECT * FROM "${table_name}"`)).rows);
    const secrets = [issued.token, app.clientSecret, app.clientId, back.searchParams.get("code") ?? "-"];
    for (const secret of secrets) {
      assert.ok(!dump.includes(secret), "a secret is in the database dump");
      assert.ok(!log.join("\n").includes(secret), "a secret is in the log");
    }
    assert.ok(dump.length > 1000, "the dump read the tables");
  });

  it("sends a post that was waiting for the account as soon as it is connected", async () => {
    const token = await server.token("create update");
    await createPostAt(server.url, token, {
      content: "Written before connecting",
      targets: [`${sandbox.url}/@alice`],
    });
    const owner = await server.signIn();
    assert.equal((await callback(owner, await pressOnAuthorizePage(await start(owner)))).status, 303);
    // The scheduler is told at once; its next wake-up on its own would be a minute away.
    await until("the waiting post reaches the sandbox", () =>
      sandbox.statuses.some((status) => status.text.startsWith("Written before connecting")),
    );
  });

  it("sends a waiting post as soon as a pasted token connects the account, too", async () => {
    const token = await server.token("create update");
    await createPostAt(server.url, token, {
      content: "Written before pasting a token",
      targets: [`${sandbox.url}/@alice`],
    });
    const owner = await server.signIn();
    const pasted = await fetch(`${server.url}${connectPath}`, {
      method: "POST",
      headers: {
        cookie: owner.cookie,
        "content-type": "application/x-www-form-urlencoded",
        accept: "text/html",
      },
      body: new URLSearchParams({
        instance: sandbox.url,
        accessToken: "configured-token-unused",
        _csrf: owner.csrf,
      }),
      redirect: "manual",
    });
    assert.equal(pasted.status, 303);
    assert.equal(await accountsStored(), 1);
    // Any account saved wakes the scheduler; on its own it would look again a minute later.
    await until("the waiting post reaches the sandbox", () =>
      sandbox.statuses.some((status) => status.text.startsWith("Written before pasting a token")),
    );
  });

  it("Deny on the instance brings the owner back with a warning, and stores nothing", async () => {
    const owner = await server.signIn();
    const back = await pressOnAuthorizePage(await start(owner), "Deny");
    assert.equal(back.searchParams.get("error"), "access_denied");
    const answer = await callback(owner, back);
    assert.equal(answer.status, 303);
    assert.equal(answer.headers.get("location"), "/syndicate/accounts");
    const flashCookie = answer.headers
      .getSetCookie()
      .map((cookie) => cookie.split(";")[0])
      .join("; ");
    const page = await fetch(`${server.url}/syndicate/accounts`, {
      headers: { cookie: `${owner.cookie}; ${flashCookie}`, accept: "text/html" },
    });
    assert.match(await page.text(), /Not connected: the authorization was denied on 127\.0\.0\.1:\d+\./);
    assert.equal(await accountsStored(), 0);
  });

  it("a second connection to the instance reuses its application", async () => {
    const owner = await server.signIn();
    await callback(owner, await pressOnAuthorizePage(await start(owner)));
    assert.equal(sandbox.apps.length, 1);
    assert.equal(await accountsStored(), 1);
  });

  it("refuses a replayed state with a localised page (400) and stores nothing more", async () => {
    const owner = await server.signIn();
    const back = await pressOnAuthorizePage(await start(owner));
    assert.equal((await callback(owner, back)).status, 303);
    await server.host.accounts?.remove(((await server.host.accounts?.list()) ?? [])[0]?.id ?? "");
    const replayed = await callback(owner, back, "de");
    assert.equal(replayed.status, 400);
    assert.match(replayed.headers.get("content-type") ?? "", /text\/html/);
    assert.match(await replayed.text(), /Diese Autorisierung ist unbekannt, abgelaufen/);
    assert.equal(await accountsStored(), 0);
  });

  it("refuses a state after 10 minutes (the injected clock) and stores nothing", async () => {
    const owner = await server.signIn();
    const back = await pressOnAuthorizePage(await start(owner));
    now += 10 * 60 * 1000;
    const late = await callback(owner, back, "fr");
    assert.equal(late.status, 400);
    assert.match(await late.text(), /Cette autorisation est inconnue, a expiré/);
    assert.equal(await accountsStored(), 0);
  });

  it("refuses another session's state, and burns it for its own session too", async () => {
    const owner = await server.signIn();
    const other = await server.signIn();
    const back = await pressOnAuthorizePage(await start(owner));
    const stolen = await callback(other, back);
    assert.equal(stolen.status, 400);
    assert.match(await stolen.text(), /This authorization is unknown, has expired/);
    assert.equal((await callback(owner, back)).status, 400);
    assert.equal(await accountsStored(), 0);
  });

  it("answers a token of any scope with 403, and registers nothing", async () => {
    const registrations = sandbox.apps.length;
    const token = await server.token("create update delete media draft");
    const begin = await fetch(`${server.url}${connectPath}/authorize`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      body: new URLSearchParams({ instance: sandbox.url }),
    });
    assert.equal(begin.status, 403);
    assert.equal(((await begin.json()) as { error: string }).error, "forbidden");
    const back = await fetch(`${server.url}${connectPath}/callback?state=x&code=y`, {
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
    });
    assert.equal(back.status, 403);
    assert.equal(sandbox.apps.length, registrations);
  });

  it("needs the CSRF token to start, and a session at all", async () => {
    const owner = await server.signIn();
    const requestsBefore = sandbox.requests.length;
    const forged = await fetch(`${server.url}${connectPath}/authorize`, {
      method: "POST",
      headers: {
        cookie: owner.cookie,
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
      },
      body: new URLSearchParams({ instance: sandbox.url }),
      redirect: "manual",
    });
    assert.equal(forged.status, 403);
    const stranger = await fetch(`${server.url}${connectPath}/authorize`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({ instance: sandbox.url }),
    });
    assert.equal(stranger.status, 401);
    assert.equal(sandbox.requests.length, requestsBefore, "nothing reached the instance");
  });

  it("says what to type for an input that names no instance (400, localised)", async () => {
    const owner = await server.signIn();
    const response = await fetch(`${server.url}${connectPath}/authorize`, {
      method: "POST",
      headers: {
        cookie: owner.cookie,
        "content-type": "application/x-www-form-urlencoded",
        accept: "text/html",
        "accept-language": "de",
      },
      body: new URLSearchParams({ instance: "not an instance", _csrf: owner.csrf }),
    });
    assert.equal(response.status, 400);
    assert.match(await response.text(), /ist keine Instanz/);
  });

  it("Disconnect revokes the token the flow obtained, with the app it kept", async () => {
    const owner = await server.signIn();
    await callback(owner, await pressOnAuthorizePage(await start(owner)));
    const accounts = server.host.accounts;
    assert.ok(accounts);
    const [account] = await accounts.list();
    assert.ok(account);
    const { accessToken } = await accounts.secrets(account.id);
    const outcome = await accounts.disconnect(account.id, { signal: AbortSignal.timeout(30_000) });
    assert.equal(outcome?.revoked, true);
    const me = await fetch(`${sandbox.url}/api/v1/accounts/verify_credentials`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    assert.equal(me.status, 401);
  });

  it("limits connections per session: the eleventh in 10 minutes gets 429", async () => {
    const owner = await server.signIn();
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 11; attempt++) {
      const response = await fetch(`${server.url}${connectPath}/authorize`, {
        method: "POST",
        headers: {
          cookie: owner.cookie,
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
        },
        body: new URLSearchParams({ instance: "not an instance", _csrf: owner.csrf }),
      });
      statuses.push(response.status);
    }
    assert.deepEqual(statuses, [...Array(10).fill(400), 429]);
  });
});

describe("Connect Mastodon from the page, without fetch.allowPrivate", () => {
  let sandbox: MastodonSandbox;
  let server: TestServer;
  before(async () => {
    sandbox = await startMastodonSandbox({ accessToken: "configured-token-unused", user: "alice" });
    server = await startTestServer({
      engine: pgliteEngine,
      config: { plugins: [] },
      plugins: [new EndpointSyndicate({}, { env: process.env })],
    });
  });
  after(async () => {
    await server?.close();
    await sandbox?.close();
  });

  it("refuses an instance on a private address (502, a localised page), asking it nothing", async () => {
    const owner = await server.signIn();
    const response = await fetch(`${server.url}/syndicate/accounts/mastodon/authorize`, {
      method: "POST",
      headers: {
        cookie: owner.cookie,
        "content-type": "application/x-www-form-urlencoded",
        accept: "text/html",
        "accept-language": "fr",
      },
      body: new URLSearchParams({ instance: sandbox.url, _csrf: owner.csrf }),
    });
    assert.equal(response.status, 502);
    assert.match(await response.text(), /se trouve à une adresse privée/);
    assert.equal(sandbox.requests.length, 0);
  });
});
