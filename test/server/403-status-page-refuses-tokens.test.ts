// The status page makes tokens of any scope and lifetime the owner asks for, so it is for the
// signed-in user only; a token of any scope (a draft-only, one-day token here, or one with every
// scope) gets 403 and no new token, however it is sent: a credential never yields a stronger one.
// Seeing the page or signing in makes no token. The page lists the tokens the server knows with a
// way to revoke each; a revoked token is refused everywhere, also after a restart, since the ids
// live in the database.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { decodeJwt } from "jose";
import type { Database } from "../../src/contract/database.ts";
import { sharedDatabase } from "../endpoint/endpoint-server.ts";
import TestPlugin from "../fixtures/test-plugin/index.ts";
import { engines } from "../helpers/databases.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { makeTokenOnStatus } from "../helpers/status-token.ts";

const JWT = /eyJ[\w-]+\.[\w-]+\.[\w-]+/;

for (const engine of engines) {
  describe(`the status page is for the signed-in user only (${engine.name})`, () => {
    let database: Database | undefined;
    const servers: TestServer[] = [];
    const secret = randomBytes(24).toString("base64url");
    const start = async () => {
      if (!database) throw new Error("no database");
      const server = await startTestServer({
        engine: sharedDatabase(database),
        // One site and one SECRET across the restart, as on a real server.
        config: { plugins: [], publication: { me: "https://alice.example" } },
        plugins: [new TestPlugin()],
        env: { SECRET: secret },
      });
      servers.push(server);
      return server;
    };
    before(async () => {
      database = await engine.open();
    });
    after(async () => {
      for (const server of servers) await server.close().catch(() => {});
      await database?.close();
    });

    /** The ids of the tokens the status page lists, from the page as the owner sees it. */
    const owners = new Map<TestServer, Promise<{ cookie: string }>>();
    const tokenRows = async (server: TestServer) => {
      if (!owners.has(server)) owners.set(server, server.signIn());
      const { cookie } = await (owners.get(server) as Promise<{ cookie: string }>);
      const html = await (
        await fetch(`${server.url}/status`, { headers: { cookie, accept: "text/html" } })
      ).text();
      return [...html.matchAll(/<tr data-token-id="([^"]+)">/g)].map((match) => match[1]);
    };

    const whoami = (server: TestServer, token: string) =>
      fetch(`${server.url}/test-mount/whoami`, { headers: { authorization: `Bearer ${token}` } });

    it("refuses a token of any scope sent in the query, the header or a form, making and showing no token", async () => {
      const server = await start();
      const weak = await server.host.tokens.issue({ scope: ["draft"], clientId: "weak", lifetimeDays: 1 });
      const strong = await server.host.tokens.issue({
        scope: ["create", "update", "delete", "media", "draft"],
        clientId: "strong",
        lifetimeDays: 1,
      });
      const listedBefore = await tokenRows(server);
      const attempts = [
        fetch(`${server.url}/status?token=${weak}`, { headers: { accept: "text/html" } }),
        fetch(`${server.url}/status`, { headers: { authorization: `Bearer ${weak}`, accept: "text/html" } }),
        fetch(`${server.url}/status`, {
          headers: { authorization: `Bearer ${weak}`, accept: "application/json" },
        }),
        fetch(`${server.url}/status/tokens/revoke`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
          body: new URLSearchParams({ access_token: weak, id: "anything" }),
        }),
        ...[weak, strong].flatMap((token) => [
          fetch(`${server.url}/status/tokens`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
            body: new URLSearchParams({ access_token: token, scope: "delete", days: "365" }),
          }),
          fetch(`${server.url}/status/tokens`, {
            method: "POST",
            headers: {
              authorization: `Bearer ${token}`,
              "content-type": "application/x-www-form-urlencoded",
              accept: "application/json",
            },
            body: "scope=create&scope=update&scope=delete&scope=media&days=365",
          }),
        ]),
      ];
      for (const response of await Promise.all(attempts)) {
        assert.equal(response.status, 403, response.url);
        const text = await response.text();
        assert.doesNotMatch(text, JWT, "no token in the refusal");
        assert.match(text, /sign in with the password/);
      }
      // The two tokens themselves are listed from their first use; nothing else is new.
      const used = new Set([weak, strong].map((token) => String(decodeJwt(token).jti)));
      assert.deepEqual(
        (await tokenRows(server)).filter((id) => !used.has(id as string)),
        listedBefore,
        "no token made for a token",
      );
    });

    it("makes no token on sign-in or on a view; one made there is listed, and shown only once", async () => {
      const server = servers[0] as TestServer;
      const listed = await tokenRows(server);
      const sessions = [await server.signIn(), await server.signIn(), await server.signIn()];
      for (const session of sessions)
        for (const _ of [1, 2]) {
          const view = await fetch(`${server.url}/status`, {
            headers: { cookie: session.cookie, accept: "text/html" },
          });
          assert.equal(view.headers.get("cache-control"), "no-store");
          assert.doesNotMatch(await view.text(), JWT, "a view shows no token");
        }
      assert.deepEqual(await tokenRows(server), listed, "three sign-ins and six views list no new token");

      const session = sessions[0] as { cookie: string; csrf: string };
      const withoutCsrf = await makeTokenOnStatus(server.url, { ...session, csrf: "forged" }, { days: 1 });
      assert.equal(withoutCsrf.response.status, 403, "a cookie-authenticated change needs the CSRF token");
      assert.doesNotMatch(withoutCsrf.html, JWT);
      assert.deepEqual(await tokenRows(server), listed, "no token made without the CSRF token");

      const made = await makeTokenOnStatus(server.url, session, { scope: ["draft"], days: 7 });
      assert.equal(made.response.status, 201);
      assert.ok(made.token);
      const id = String(decodeJwt(made.token).jti);
      assert.match(made.html, new RegExp(`<tr data-token-id="${id}">`));
      const later = await (
        await fetch(`${server.url}/status`, { headers: { cookie: session.cookie, accept: "text/html" } })
      ).text();
      assert.match(later, new RegExp(`<tr data-token-id="${id}">[\\s\\S]*?<td[^>]*>draft</td>`));
      assert.ok(!later.includes(made.token), "never shown again after its creation");
      assert.doesNotMatch(later, JWT);
      assert.deepEqual(await tokenRows(server), [id, ...listed], "one token, the one asked for");
    });

    it("lists a token issued elsewhere once it is used, and revokes it everywhere", async () => {
      const server = servers[0] as TestServer;
      const session = await server.signIn();
      const script = await server.host.tokens.issue({
        scope: ["create"],
        clientId: "possekit-cli",
        lifetimeDays: 7,
      });
      const id = String(decodeJwt(script).jti);
      assert.equal((await whoami(server, script)).status, 200);
      const listed = await (
        await fetch(`${server.url}/status`, { headers: { cookie: session.cookie, accept: "text/html" } })
      ).text();
      assert.match(listed, new RegExp(`<tr data-token-id="${id}">[\\s\\S]*?possekit-cli`));

      const withoutCsrf = await fetch(`${server.url}/status/tokens/revoke`, {
        method: "POST",
        headers: { cookie: session.cookie, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ id }),
        redirect: "manual",
      });
      assert.equal(withoutCsrf.status, 403, "a cookie-authenticated change needs the CSRF token");
      assert.equal((await whoami(server, script)).status, 200, "still valid");

      const revoke = await fetch(`${server.url}/status/tokens/revoke`, {
        method: "POST",
        headers: { cookie: session.cookie, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ id, _csrf: session.csrf }),
        redirect: "manual",
      });
      assert.equal(revoke.status, 303);
      assert.equal(revoke.headers.get("location"), "/status");
      const refused = await whoami(server, script);
      assert.equal(refused.status, 401);
      assert.equal((await refused.json()).error_description, "The access token has been revoked");
      const micropub = await fetch(`${server.url}/micropub?q=config`, {
        headers: { authorization: `Bearer ${script}` },
      });
      assert.equal(micropub.status, 401, "refused by every authenticated route");
    });

    it("keeps refusing a revoked token after a restart", async () => {
      const before = servers[0] as TestServer;
      const session = await before.signIn();
      const token = await before.host.tokens.issue({ scope: ["create"], clientId: "app", lifetimeDays: 1 });
      const other = await before.host.tokens.issue({ scope: ["create"], clientId: "app", lifetimeDays: 1 });
      assert.equal((await whoami(before, token)).status, 200);
      await fetch(`${before.url}/status/tokens/revoke`, {
        method: "POST",
        headers: { cookie: session.cookie, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ id: String(decodeJwt(token).jti), _csrf: session.csrf }),
      });
      await before.close();

      const after = await start();
      assert.equal((await whoami(after, token)).status, 401);
      assert.equal((await whoami(after, other)).status, 200, "only the revoked one");
    });
  });
}
