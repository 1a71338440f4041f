// Connecting a Mastodon account by OAuth against the sandbox Mastodon, on a real database: PKCE
// S256 (the sandbox refuses a wrong verifier), one application per instance reused by later
// connections, invalid_client answered by one new registration and never a loop, the out-of-band
// flow's code, revocation, the private-address rules, and nothing secret left in the tables.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, beforeEach, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import type { Database } from "../../src/contract/database.ts";
import { SecretBox } from "../../src/server/accounts/secret-box.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { MastodonConnector } from "../../src/syndicators/mastodon/oauth/mastodon-connector.ts";
import {
  MastodonOAuthClient,
  MastodonOAuthError,
  OUT_OF_BAND_REDIRECT_URI,
} from "../../src/syndicators/mastodon/oauth/mastodon-oauth-client.ts";
import {
  MastodonApps,
  MastodonConnectStates,
  mastodonOAuthMigrations,
  STATE_LIFETIME_MS,
} from "../../src/syndicators/mastodon/oauth/mastodon-oauth-store.ts";
import { engines } from "../helpers/databases.ts";
import { codeShownOnAuthorize, pressOnAuthorizePage } from "../helpers/mastodon-authorize.ts";

const redirectUri = "http://127.0.0.1:9/syndicate/accounts/mastodon/callback";

for (const engine of engines) {
  describe(`Connecting Mastodon by OAuth (${engine.name})`, () => {
    let sandbox: MastodonSandbox;
    let database: Database;
    let now = Date.parse("2026-11-28T10:00:00Z");
    const box = new SecretBox(randomBytes(32));
    const client = new MastodonOAuthClient({ policy: { allowPrivate: true } });
    let apps: MastodonApps;
    let states: MastodonConnectStates;
    let connector: MastodonConnector;

    before(async () => {
      database = await engine.open();
      await migrate(database, mastodonOAuthMigrations);
      apps = new MastodonApps(database, box);
      states = new MastodonConnectStates(database, box, () => now);
      connector = new MastodonConnector(client, apps);
    });
    beforeEach(async () => {
      sandbox = await startMastodonSandbox({ accessToken: "configured", user: "alice" });
      await database.query("DELETE FROM mastodon_oauth_apps");
      await database.query("DELETE FROM mastodon_oauth_states");
    });
    after(() => database.close());

    async function connectOnce(sessionId = "session-1") {
      const authorizeUrl = await connector.begin(sandbox.url, { redirectUri, sessionId, states });
      const back = await pressOnAuthorizePage(authorizeUrl);
      const taken = await states.take(back.searchParams.get("state") ?? "", sessionId);
      assert.ok(taken.ok, "the state comes back and is taken");
      return {
        authorizeUrl,
        back,
        taken,
        connection: await connector.finish({ ...taken.pending, callback: back.searchParams }),
      };
    }

    it("sends the browser with PKCE S256, a state and the narrowest scopes; the token request carries the verifier", async () => {
      try {
        const { authorizeUrl, connection } = await connectOnce();
        assert.equal(authorizeUrl.origin, sandbox.url);
        assert.equal(authorizeUrl.pathname, "/oauth/authorize");
        assert.equal(authorizeUrl.searchParams.get("code_challenge_method"), "S256");
        assert.match(authorizeUrl.searchParams.get("code_challenge") ?? "", /^[\w-]{43}$/);
        assert.match(authorizeUrl.searchParams.get("state") ?? "", /^[\w-]{43}$/);
        assert.equal(
          authorizeUrl.searchParams.get("scope"),
          "profile write:statuses write:media write:favourites read:statuses read:search",
        );
        assert.equal(connection.account.handle, `@alice@${new URL(sandbox.url).host}`);
        assert.equal(
          connection.scope,
          "profile write:statuses write:media write:favourites read:statuses read:search",
        );
        // The token works for posting, as the sandbox checks its scopes.
        const posted = await fetch(`${sandbox.url}/api/v1/statuses`, {
          method: "POST",
          headers: { authorization: `Bearer ${connection.accessToken}` },
          body: new URLSearchParams({ status: "Hello" }),
        });
        assert.equal(posted.status, 200);
      } finally {
        await sandbox.close();
      }
    });

    it("a wrong verifier is refused by the instance (invalid_grant), and no token comes of it", async () => {
      try {
        const authorizeUrl = await connector.begin(sandbox.url, { redirectUri, sessionId: "s", states });
        const back = await pressOnAuthorizePage(authorizeUrl);
        const taken = await states.take(back.searchParams.get("state") ?? "", "s");
        assert.ok(taken.ok);
        await assert.rejects(
          connector.finish({ ...taken.pending, codeVerifier: "w".repeat(43), callback: back.searchParams }),
          (error: unknown) => error instanceof MastodonOAuthError && error.kind === "invalid-grant",
        );
        assert.equal(sandbox.tokens.filter((token) => token.user !== null).length, 0);
      } finally {
        await sandbox.close();
      }
    });

    it("two connections to one instance register one application", async () => {
      try {
        await connectOnce("session-1");
        await connectOnce("session-2");
        assert.equal(sandbox.apps.length, 1);
        assert.equal(sandbox.requests.filter((request) => request.path === "/api/v1/apps").length, 1);
      } finally {
        await sandbox.close();
      }
    });

    it("an application the instance forgot is registered again once, and used", async () => {
      try {
        await connectOnce();
        sandbox.forgetApps();
        const { connection } = await connectOnce();
        assert.equal(sandbox.apps.length, 1, "one new registration");
        assert.equal(sandbox.requests.filter((request) => request.path === "/api/v1/apps").length, 2);
        assert.equal(connection.app.clientId, sandbox.apps[0]?.clientId);
      } finally {
        await sandbox.close();
      }
    });

    it("an instance that answers invalid_client to everything gets one registration, never a loop", async () => {
      try {
        await connectOnce();
        sandbox.setBehaviour({
          route: "POST /oauth/token",
          status: 401,
          body: { error: "invalid_client", error_description: "Client authentication failed" },
        });
        const authorizeUrl = await connector.begin(sandbox.url, { redirectUri, sessionId: "s", states });
        assert.equal(sandbox.requests.filter((request) => request.path === "/api/v1/apps").length, 2);
        const back = await pressOnAuthorizePage(authorizeUrl);
        const taken = await states.take(back.searchParams.get("state") ?? "", "s");
        assert.ok(taken.ok);
        await assert.rejects(
          connector.finish({ ...taken.pending, callback: back.searchParams }),
          (error: unknown) => error instanceof MastodonOAuthError && error.kind === "invalid-client",
        );
        assert.equal(sandbox.requests.filter((request) => request.path === "/api/v1/apps").length, 2);
        assert.equal(sandbox.requests.filter((request) => request.path === "/oauth/token").length, 3);
        const { rows } = await database.query("SELECT 1 FROM mastodon_oauth_apps");
        assert.equal(rows.length, 0, "the refused app is forgotten: the next connection registers anew");
      } finally {
        await sandbox.close();
      }
    });

    it("a state is single-use, expires after 10 minutes and belongs to the session that began it", async () => {
      try {
        const pending = { instance: await connector.discover(sandbox.url), redirectUri };
        const replayed = await states.create("mine", pending);
        assert.equal((await states.take(replayed, "mine")).ok, true);
        assert.deepEqual(await states.take(replayed, "mine"), { ok: false, why: "unknown" });
        const late = await states.create("mine", pending);
        now += STATE_LIFETIME_MS;
        assert.deepEqual(await states.take(late, "mine"), { ok: false, why: "expired" });
        const almost = await states.create("mine", pending);
        now += STATE_LIFETIME_MS - 1;
        assert.equal((await states.take(almost, "mine")).ok, true);
        const stolen = await states.create("mine", pending);
        assert.deepEqual(await states.take(stolen, "theirs"), { ok: false, why: "another-session" });
        assert.deepEqual(
          await states.take(stolen, "mine"),
          { ok: false, why: "unknown" },
          "burnt by the try",
        );
      } finally {
        await sandbox.close();
      }
    });

    it("falls back to /api/v1/instance before Mastodon 4.3: no PKCE, read:accounts instead of profile", async () => {
      await sandbox.close();
      sandbox = await startMastodonSandbox({ accessToken: "configured", user: "alice", instanceApi: "v1" });
      try {
        const { authorizeUrl, connection } = await connectOnce();
        assert.equal(authorizeUrl.searchParams.get("code_challenge"), null);
        assert.match(authorizeUrl.searchParams.get("scope") ?? "", /^read:accounts /);
        assert.equal(connection.account.username, "alice");
      } finally {
        await sandbox.close();
      }
    });

    it("the out-of-band redirect: the pasted code is exchanged with its verifier", async () => {
      try {
        const instance = await connector.discover(sandbox.url);
        const app = await connector.appFor(instance, OUT_OF_BAND_REDIRECT_URI);
        const { newPkce } = await import("../../src/syndicators/mastodon/oauth/mastodon-oauth-client.ts");
        const pkce = await newPkce();
        const url = client.authorizeUrl(instance, app, {
          redirectUri: OUT_OF_BAND_REDIRECT_URI,
          codeChallenge: pkce.challenge,
        });
        const code = await codeShownOnAuthorize(url);
        const connection = await connector.finish({
          instance,
          redirectUri: OUT_OF_BAND_REDIRECT_URI,
          codeVerifier: pkce.verifier,
          callback: new URLSearchParams({ code }),
        });
        assert.equal(connection.account.username, "alice");
      } finally {
        await sandbox.close();
      }
    });

    it("revokes the token: the instance refuses it afterwards", async () => {
      try {
        const { connection } = await connectOnce();
        await client.revoke(connection.instance, connection.app, connection.accessToken);
        const me = await fetch(`${sandbox.url}/api/v1/accounts/verify_credentials`, {
          headers: { authorization: `Bearer ${connection.accessToken}` },
        });
        assert.equal(me.status, 401);
      } finally {
        await sandbox.close();
      }
    });

    it("refuses an instance on a private address without fetch.allowPrivate, before any request", async () => {
      try {
        const guarded = new MastodonConnector(new MastodonOAuthClient({ policy: {} }), apps);
        const before = sandbox.requests.length;
        await assert.rejects(
          guarded.begin(sandbox.url, { redirectUri, sessionId: "s", states }),
          (error: unknown) =>
            error instanceof MastodonOAuthError &&
            error.kind === "unreachable" &&
            /private address/.test(error.message),
        );
        assert.equal(sandbox.requests.length, before);
      } finally {
        await sandbox.close();
      }
    });

    it("refuses metadata whose endpoints are on another site (the secret and the browser stay with the instance)", async () => {
      try {
        for (const endpoints of [
          { token_endpoint: "https://elsewhere.example/oauth/token" },
          { authorization_endpoint: "javascript:alert(1)" },
        ]) {
          sandbox.setBehaviour({
            route: "GET /.well-known/oauth-authorization-server",
            status: 200,
            body: {
              issuer: `${sandbox.url}/`,
              authorization_endpoint: `${sandbox.url}/oauth/authorize`,
              token_endpoint: `${sandbox.url}/oauth/token`,
              scopes_supported: ["profile", "write:statuses", "write:media", "write:favourites"].concat([
                "read:statuses",
                "read:search",
              ]),
              ...endpoints,
            },
          });
          await assert.rejects(
            connector.begin(sandbox.url, { redirectUri, sessionId: "s", states }),
            (error: unknown) =>
              error instanceof MastodonOAuthError &&
              error.kind === "not-mastodon" &&
              /another site/.test(error.message),
          );
        }
        assert.equal(sandbox.apps.length, 0, "nothing registered");
      } finally {
        await sandbox.close();
      }
    });

    it("keeps no client id, client secret or verifier in the clear", async () => {
      try {
        const authorizeUrl = await connector.begin(sandbox.url, { redirectUri, sessionId: "s", states });
        const app = sandbox.apps[0];
        assert.ok(app);
        const dump = JSON.stringify([
          (await database.query("SELECT * FROM mastodon_oauth_apps")).rows,
          (await database.query("SELECT * FROM mastodon_oauth_states")).rows,
        ]);
        assert.ok(!dump.includes(app.clientSecret));
        assert.ok(!dump.includes(app.clientId));
        assert.ok(!dump.includes(authorizeUrl.searchParams.get("state") ?? "-"));
      } finally {
        await sandbox.close();
      }
    });
  });
}
