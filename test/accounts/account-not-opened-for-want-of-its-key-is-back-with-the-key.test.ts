// An account whose secrets a server cannot open (started with another ACCOUNT_SECRETS_KEY, as after a
// restore without the key) needs reconnecting, and the page says which variable to set; started
// with the right key again on the same database, the account is connected again by itself. A mark a
// plug-in made because the service refused the credentials is not lifted by a restart: only a
// reconnect ends it.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import type { Database } from "../../src/contract/database.ts";
import { closeAll, type EndpointServer, startEndpointServer } from "../endpoint/endpoint-server.ts";
import { postConnectForm } from "../helpers/accounts-form.ts";
import { engines } from "../helpers/databases.ts";

for (const engine of engines) {
  describe(`an account whose key is missing, then given back (${engine.name})`, () => {
    let sandbox: MastodonSandbox;
    let database: Database;
    const key = randomBytes(32).toString("base64");
    const otherKey = randomBytes(32).toString("base64");
    const running: EndpointServer[] = [];
    before(async () => {
      sandbox = await startMastodonSandbox({ accessToken: randomBytes(12).toString("hex"), user: "alice" });
      database = await engine.open();
    });
    after(async () => {
      await Promise.all(running.map((app) => app.close()));
      await closeAll({ sandbox });
      await database?.close();
    });

    /** A server on the shared database; the one before it is stopped first, as in a restart. */
    const restart = async (accountsKey: string) => {
      await running.pop()?.close();
      const app = await startEndpointServer({
        engine,
        database,
        targets: [],
        config: { fetch: { allowPrivate: true } },
        env: { ACCOUNT_SECRETS_KEY: accountsKey },
      });
      running.push(app);
      return app;
    };
    const page = async (app: EndpointServer) => {
      const session = await app.server.signIn();
      const response = await fetch(`${app.url}/syndicate/accounts`, {
        headers: { cookie: session.cookie, accept: "text/html" },
      });
      assert.equal(response.status, 200);
      return response.text();
    };

    it("needs reconnecting without its key, and is connected again once the key is back", async () => {
      const first = await restart(key);
      const session = await first.server.signIn();
      const connected = await postConnectForm(first.url, session, "mastodon", {
        instance: sandbox.url,
        accessToken: sandbox.accessToken,
      });
      assert.equal(connected.status, 303);

      const keyless = await page(await restart(otherKey));
      assert.match(keyless, /data-account-state="needsReconnect"/);
      assert.match(keyless, /set ACCOUNT_SECRETS_KEY to it/, "the page names the variable to set");

      const back = await restart(key);
      assert.match(await page(back), /data-account-state="connected"/);
      assert.doesNotMatch(await page(back), /needs reconnecting/);
    });

    it("keeps a mark for refused credentials across a restart", async () => {
      const app = running.at(-1) as EndpointServer;
      const accounts = app.server.host.accounts;
      assert.ok(accounts);
      const [account] = await accounts.list();
      assert.ok(account);
      await accounts.markNeedsReconnect(account.id, "the instance refused the token (401)");

      const restarted = await page(await restart(key));
      assert.match(restarted, /data-account-state="needsReconnect"/);
      assert.match(restarted, /the instance refused the token \(401\)/);
    });
  });
}
