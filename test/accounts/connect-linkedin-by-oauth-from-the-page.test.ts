// Connecting LinkedIn from the Accounts page, through a whole server and the LinkedIn sandbox: the
// owner enters their developer app once (stored sealed, never shown back), presses Connect with
// LinkedIn, allows on LinkedIn's page, and the member's account is stored with its person URN (from
// /v2/userinfo) and the token's end (60 days on); a post waiting for it then goes out by itself.
// Cancel on LinkedIn stores nothing; a replayed state is refused; an access token of any scope gets
// 403. Neither the log nor the database holds the token, the app's secret or the code.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import {
  type LinkedinSandbox,
  SIXTY_DAYS_S,
  startLinkedinSandbox,
} from "../../dev/sandbox/linkedin-server.ts";
import type { AccountFlow } from "../../src/contract/account-flow.ts";
import { EndpointSyndicate } from "../../src/index.ts";
import { linkedinOAuthFlowFor } from "../../src/syndicators/linkedin/oauth/linkedin-oauth-flow.ts";
import { pgliteEngine } from "../helpers/databases.ts";
import { until } from "../helpers/eventually.ts";
import { createPostAt } from "../helpers/micropub-create.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

const app = { clientId: "86linkedinapp", clientSecret: "WPL_AP1.secret-of-the-app" };
const connectPath = "/syndicate/accounts/linkedin";

describe("Connect LinkedIn from the page", () => {
  let sandbox: LinkedinSandbox;
  let server: TestServer;
  let now = Date.parse("2026-11-28T10:00:00Z");
  const log: string[] = [];

  before(async () => {
    sandbox = await startLinkedinSandbox({ app });
    const flow = linkedinOAuthFlowFor(sandbox.url);
    // The package's endpoint with the flow pointed at the sandbox instead of api.linkedin.com.
    class EndpointWithSandbox extends EndpointSyndicate {
      protected override accountFlows: readonly AccountFlow[] = [flow];
    }
    server = await startTestServer({
      engine: pgliteEngine,
      config: { plugins: [], fetch: { allowPrivate: true }, application: { rateLimit: { signIn: 100 } } },
      plugins: [new EndpointWithSandbox({}, { env: process.env, now: () => now })],
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

  const form = (session: { cookie: string; csrf: string }, path: string, fields: Record<string, string>) =>
    fetch(`${server.url}${connectPath}${path}`, {
      method: "POST",
      headers: {
        cookie: session.cookie,
        "content-type": "application/x-www-form-urlencoded",
        accept: "text/html",
      },
      body: new URLSearchParams({ ...fields, _csrf: session.csrf }),
      redirect: "manual",
    });
  const accountsPage = async (session: { cookie: string }, extraCookie = "") =>
    (
      await fetch(`${server.url}/syndicate/accounts`, {
        headers: {
          cookie: extraCookie ? `${session.cookie}; ${extraCookie}` : session.cookie,
          accept: "text/html",
        },
      })
    ).text();
  const flashOf = (answer: Response) =>
    answer.headers
      .getSetCookie()
      .map((cookie) => cookie.split(";")[0])
      .join("; ");

  /** Connect with LinkedIn: the continue page's link to LinkedIn's authorize page. */
  async function start(session: { cookie: string; csrf: string }): Promise<URL> {
    const answer = await form(session, "/authorize", {});
    const html = await answer.text();
    assert.equal(answer.status, 200, html);
    const href = /<a href="([^"]+)" data-authorize-link>/.exec(html)?.[1]?.replace(/&amp;/g, "&");
    assert.ok(href);
    return new URL(href);
  }

  /** The member on LinkedIn's page: Allow (or Cancel); where LinkedIn sends the browser back. */
  async function decide(authorize: URL, decision: "allow" | "cancel" = "allow"): Promise<URL> {
    const page = await (await fetch(authorize)).text();
    const fields = Object.fromEntries(
      [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [
        m[1] ?? "",
        (m[2] ?? "").replace(/&#38;/g, "&").replace(/&#34;/g, '"'),
      ]),
    );
    const answer = await fetch(`${sandbox.url}/oauth/v2/authorization`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ ...fields, decision }),
      redirect: "manual",
    });
    assert.equal(answer.status, 302);
    return new URL(answer.headers.get("location") ?? "");
  }

  const callback = (session: { cookie: string }, url: URL, language = "en") =>
    fetch(url, {
      headers: { cookie: session.cookie, accept: "text/html", "accept-language": language },
      redirect: "manual",
    });

  it("enters the app once, connects by OAuth, and sends a waiting post by itself", async () => {
    const owner = await server.signIn();
    let page = await accountsPage(owner);
    assert.match(page, /Your LinkedIn app/);
    assert.ok(
      page.includes(`${server.url}${connectPath}/callback`),
      "the page names the redirect URL to list",
    );
    assert.doesNotMatch(page, /id="linkedin-authorize"/, "no Connect button before the app is entered");
    assert.equal((await form(owner, "/authorize", {})).status, 400, "connecting needs the app first");

    const saved = await form(owner, "/app", app);
    assert.equal(saved.status, 303);
    page = await accountsPage(owner, flashOf(saved));
    assert.match(page, /Your LinkedIn app is saved/);
    assert.match(page, /id="linkedin-authorize"/);
    assert.ok(
      !page.includes(app.clientSecret) && !page.includes(app.clientId),
      "the app is never shown back",
    );

    const token = await server.token("create update");
    await createPostAt(server.url, token, {
      content: "Waiting for LinkedIn (really)",
      targets: ["https://www.linkedin.com/#urn:li:person:AbC123xyz"],
    });

    const authorize = await start(owner);
    assert.equal(authorize.origin + authorize.pathname, `${sandbox.url}/oauth/v2/authorization`);
    assert.equal(authorize.searchParams.get("scope"), "openid profile w_member_social");
    assert.equal(authorize.searchParams.get("client_id"), app.clientId);
    assert.equal(authorize.searchParams.get("redirect_uri"), `${server.url}${connectPath}/callback`);
    const back = await decide(authorize);
    const answer = await callback(owner, back);
    assert.equal(answer.status, 303, await answer.text());
    assert.match(await accountsPage(owner, flashOf(answer)), /Connected as Ada Lovelace/);

    const [account] = (await server.host.accounts?.list()) ?? [];
    assert.ok(account);
    assert.equal(account.type, "linkedin");
    assert.equal(account.uid, "https://www.linkedin.com/#urn:li:person:AbC123xyz");
    assert.equal(account.options.author, "urn:li:person:AbC123xyz");
    assert.equal(account.options.tokenExpiresAt, new Date(now + SIXTY_DAYS_S * 1000).toISOString());
    assert.deepEqual(Object.keys(account.secretsSetAt).sort(), ["accessToken", "clientId", "clientSecret"]);

    await until("the waiting post reaches LinkedIn", () =>
      sandbox.posts.some((post) => post.shown.startsWith("Waiting for LinkedIn (really)")),
    );
    const issued = [...sandbox.tokens.keys()][0] ?? "-";

    const database = server.host.database;
    assert.ok(database);
    const tables = await database.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
    );
    let dump = "";
    for (const { table_name } of tables.rows)
      dump += JSON.stringify((await database.query(`SELECT * FROM "${table_name}"`)).rows);
    for (const secret of [issued, app.clientSecret, app.clientId, back.searchParams.get("code") ?? "-"]) {
      assert.ok(!dump.includes(secret), "a secret is in the database dump");
      assert.ok(!log.join("\n").includes(secret), "a secret is in the log");
    }

    // Disconnect revokes the token with the app.
    const outcome = await server.host.accounts?.disconnect(account.id, {
      signal: AbortSignal.timeout(30_000),
    });
    assert.equal(outcome?.revoked, true);
    assert.equal(sandbox.tokens.get(issued)?.revoked, true);
  });

  it("a create whose answer is lost shows on the page as of unknown outcome, and is not sent again", async () => {
    const owner = await server.signIn();
    await form(owner, "/app", app);
    assert.equal((await callback(owner, await decide(await start(owner)))).status, 303);
    const before = sandbox.posts.length;
    sandbox.dropCreateAnswer();
    const token = await server.token("create update");
    await createPostAt(server.url, token, {
      content: "Did it appear?",
      targets: ["https://www.linkedin.com/#urn:li:person:AbC123xyz"],
    });
    let page = "";
    await until("the page says the outcome is unknown", async () => {
      page = await (
        await fetch(`${server.url}/syndicate`, { headers: { cookie: owner.cookie, accept: "text/html" } })
      ).text();
      return page.includes("Outcome unknown");
    });
    assert.match(
      page,
      /Look on the target, then confirm the copy&#39;s address or retry|Look on the target, then confirm the copy's address or retry/,
    );
    assert.equal(sandbox.posts.length, before + 1, "LinkedIn made it once");
    // The scheduler looks again when another post comes: the unknown one is not among what it sends.
    await createPostAt(server.url, token, {
      content: "Another post",
      targets: ["https://www.linkedin.com/#urn:li:person:AbC123xyz"],
    });
    await until("the other post arrives", () => sandbox.posts.some((post) => post.shown === "Another post"));
    assert.equal(
      sandbox.posts.filter((post) => post.shown === "Did it appear?").length,
      1,
      "never resent by itself",
    );
  });

  it("Cancel on LinkedIn brings the owner back with a warning, and stores nothing", async () => {
    const owner = await server.signIn();
    await form(owner, "/app", app);
    const back = await decide(await start(owner), "cancel");
    assert.equal(back.searchParams.get("error"), "user_cancelled_authorize");
    const answer = await callback(owner, back);
    assert.equal(answer.status, 303);
    assert.match(
      await accountsPage(owner, flashOf(answer)),
      /Not connected: the authorization was denied on LinkedIn\./,
    );
    assert.equal((await server.host.accounts?.list())?.length, 0);
  });

  it("refuses a replayed or expired state with a localised page, and a token of any scope with 403", async () => {
    const owner = await server.signIn();
    await form(owner, "/app", app);
    const back = await decide(await start(owner));
    assert.equal((await callback(owner, back)).status, 303);
    const replayed = await callback(owner, back, "de");
    assert.equal(replayed.status, 400);
    assert.match(await replayed.text(), /Diese Autorisierung ist unbekannt, abgelaufen/);
    const late = await decide(await start(owner));
    now += 10 * 60 * 1000;
    assert.equal((await callback(owner, late)).status, 400);
    const token = await server.token("create update delete media draft");
    const begin = await fetch(`${server.url}${connectPath}/app`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      body: new URLSearchParams(app),
    });
    assert.equal(begin.status, 403);
  });
});
