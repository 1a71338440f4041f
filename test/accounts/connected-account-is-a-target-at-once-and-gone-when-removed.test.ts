// A connected account is a syndication target in the running server the moment it is saved, with no
// restart and no file written: q=syndicate-to lists it, POST /syndicate sends to it; removed, it is
// gone from q=syndicate-to at once. Two accounts on one service are two targets, each with its own
// copy. A configured target's uid cannot be taken by a connected account (the config file wins).
// The database holds none of the secrets in clear.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { AccountError } from "../../src/contract/accounts.ts";
import type { PostResult } from "../../src/syndication/types.ts";
import {
  closeAll,
  type EndpointServer,
  startEndpointServer,
  startTarget,
  type Target,
} from "../endpoint/endpoint-server.ts";
import { pgliteEngine } from "../helpers/databases.ts";

describe("an account connected at run time", () => {
  let configured: Target;
  let alice: MastodonSandbox;
  let bob: MastodonSandbox;
  let app: EndpointServer;
  const aliceToken = `alice-${randomBytes(12).toString("hex")}`;
  const bobToken = `bob-${randomBytes(12).toString("hex")}`;
  before(async () => {
    configured = await startTarget();
    alice = await startMastodonSandbox({ accessToken: aliceToken, user: "alice" });
    bob = await startMastodonSandbox({ accessToken: bobToken, user: "bob" });
    app = await startEndpointServer({ engine: pgliteEngine, targets: [configured] });
  });
  after(async () => {
    await app?.close();
    await closeAll(configured, { sandbox: alice }, { sandbox: bob });
  });

  const syndicateTo = async () => {
    const response = await fetch(`${app.url}/micropub?q=syndicate-to`, {
      headers: { authorization: `Bearer ${app.token}`, accept: "application/json" },
    });
    assert.equal(response.status, 200);
    return ((await response.json()) as { "syndicate-to": { uid: string }[] })["syndicate-to"].map(
      (t) => t.uid,
    );
  };
  const accounts = () => {
    const found = app.server.host.accounts;
    assert.ok(found, "a server with a database has accounts");
    return found;
  };
  const connect = (sandbox: MastodonSandbox, accessToken: string) =>
    accounts().save({
      type: "mastodon",
      options: { url: sandbox.url, user: sandbox.user },
      display: { name: `@${sandbox.user}`, instance: new URL(sandbox.url).host },
      secrets: { accessToken },
    });

  it("is listed and sent to at once, each account of a service with its own copy", async () => {
    const a = await connect(alice, aliceToken);
    const b = await connect(bob, bobToken);
    assert.equal(a.uid, `${alice.url}/@alice`);
    assert.deepEqual(await syndicateTo(), [configured.uid, a.uid, b.uid]);

    const post = await app.createPost({ content: "Hello from a connected account", targets: [a.uid, b.uid] });
    const answer = await app.syndicate(`?source_url=${encodeURIComponent(post)}`);
    const result = (await answer.json()) as PostResult;
    assert.equal(result.status, "syndicated", JSON.stringify(result.targets));
    assert.equal(alice.statuses.length, 1);
    assert.equal(bob.statuses.length, 1);
    assert.deepEqual(result.targets.map((target) => target.uid).sort(), [a.uid, b.uid].sort());
  });

  it("keeps no secret in clear in the database, and nothing in a file", async () => {
    const database = app.server.host.database;
    assert.ok(database);
    const { rows } = await database.query<{ dump: string }>(
      "SELECT string_agg(row_to_json(c)::text, '\n') AS dump FROM connected_accounts c",
    );
    const dump = rows[0]?.dump ?? "";
    assert.ok(dump.includes("v1."), "the secrets are kept sealed");
    for (const secret of [aliceToken, bobToken]) assert.ok(!dump.includes(secret));
    const files = readdirSync(app.server.host.hostConfig.application.dataDir);
    assert.ok(!files.some((name) => name.endsWith(".json")), files.join(", "));
  });

  it("refuses a uid the configuration file defines", async () => {
    const sandbox = configured.sandbox;
    await assert.rejects(
      accounts().save({
        type: "mastodon",
        options: { url: sandbox.url, user: sandbox.user },
        display: { name: "taken" },
        secrets: { accessToken: "whatever" },
      }),
      (error: AccountError) => error instanceof AccountError && error.code === "managed",
    );
    assert.equal((await syndicateTo()).filter((uid) => uid === configured.uid).length, 1);
    // The page shows it under Mastodon as the configuration file's, with nothing to change.
    const { cookie } = await app.server.signIn();
    const html = await (
      await fetch(`${app.url}/syndicate/accounts`, { headers: { cookie, accept: "text/html" } })
    ).text();
    const mastodon = html.slice(
      html.indexOf('id="accounts-mastodon"'),
      html.indexOf('id="accounts-bluesky"'),
    );
    const row = new RegExp(
      `<li data-account-state="managed" data-uid="${configured.uid}">[^\n]*managed by the configuration file`,
    );
    assert.match(mastodon, row);
    assert.equal(
      (mastodon.match(/\/disconnect"/g) ?? []).length,
      2,
      "only the two connected accounts can be disconnected",
    );
  });

  it("is gone from q=syndicate-to the moment it is removed", async () => {
    const a = await accounts().byUid(`${alice.url}/@alice`);
    assert.ok(a);
    await accounts().remove(a.id);
    assert.deepEqual(await syndicateTo(), [configured.uid, `${bob.url}/@bob`]);
    assert.equal(await accounts().get(a.id), null);
  });
});
