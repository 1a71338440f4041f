// Issue 13, finding 1: the status page mints a `create update` token valid 90 days, so it is for the
// signed-in user only; a token of any scope (a draft-only, one-day token here) gets 403 and no new
// token, however it is sent. The page lists the tokens the server knows with a way to revoke each;
// a revoked token is refused everywhere, also after a restart, since the ids live in the database.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { decodeJwt } from "jose";
import type { Database } from "../../src/contract/database.ts";
import { sharedDatabase } from "../endpoint/endpoint-server.ts";
import TestPlugin from "../fixtures/test-plugin/index.ts";
import { engines } from "../helpers/databases.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

const JWT = /eyJ[\w-]+\.[\w-]+\.[\w-]+/;
const pageToken = (html: string) => /id="access-token" type="text" readonly value="([^"]+)"/.exec(html)?.[1];

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

    const whoami = (server: TestServer, token: string) =>
      fetch(`${server.url}/test-mount/whoami`, { headers: { authorization: `Bearer ${token}` } });

    it("refuses a draft-only one-day token sent in the query, the header or a form, showing no token", async () => {
      const server = await start();
      const weak = await server.host.tokens.issue({ scope: ["draft"], clientId: "weak", lifetimeDays: 1 });
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
      ];
      for (const response of await Promise.all(attempts)) {
        assert.equal(response.status, 403, response.url);
        const text = await response.text();
        assert.doesNotMatch(text, JWT, "no token in the refusal");
        assert.match(text, /sign in with the password/);
      }
    });

    it("shows the signed-in user one token per session, listed, uncached", async () => {
      const server = servers[0] as TestServer;
      const session = await server.signIn();
      const view = () =>
        fetch(`${server.url}/status`, { headers: { cookie: session.cookie, accept: "text/html" } });
      const first = await view();
      assert.equal(first.headers.get("cache-control"), "no-store");
      const html = await first.text();
      const token = pageToken(html);
      assert.ok(token);
      const again = pageToken(await (await view()).text());
      assert.ok(again);
      const id = decodeJwt(token).jti;
      assert.equal(decodeJwt(again).jti, id, "the same token id on every view of one session");
      assert.match(html, new RegExp(`<tr data-token-id="${id}">`));
      const again2 = await (await view()).text();
      assert.equal(
        again2.match(/<tr data-token-id=/g)?.length,
        html.match(/<tr data-token-id=/g)?.length,
        "no new row, however often the page is seen",
      );
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
