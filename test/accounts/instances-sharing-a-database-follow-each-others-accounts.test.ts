// Two instances of the server sharing one database (as on PostgreSQL behind a load balancer): an
// account connected, reconnected or disconnected on one becomes a target, is rebuilt with its new
// token, or is gone on the other at its next read of the accounts (every 30 s on PostgreSQL; the
// test asks for that read instead of waiting for it).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import type { PostResult } from "../../src/syndication/types.ts";
import { closeAll, type EndpointServer, startEndpointServer } from "../endpoint/endpoint-server.ts";
import { pgliteEngine } from "../helpers/databases.ts";

describe("instances sharing a database", () => {
  let sandbox: MastodonSandbox;
  let first: EndpointServer;
  let second: EndpointServer;
  const token = `one-${randomBytes(8).toString("hex")}`;
  const newToken = `two-${randomBytes(8).toString("hex")}`;
  // One key for both, as instances of one deployment share their environment.
  const env = { ACCOUNT_SECRETS_KEY: randomBytes(32).toString("base64") };
  before(async () => {
    sandbox = await startMastodonSandbox({ accessToken: token, user: "alice" });
    const config = { fetch: { allowPrivate: true } };
    first = await startEndpointServer({ engine: pgliteEngine, targets: [], config, env });
    const database = first.server.host.database;
    assert.ok(database);
    second = await startEndpointServer({ engine: pgliteEngine, targets: [], config, env, database });
  });
  after(async () => {
    await second?.close();
    await first?.close();
    await closeAll({ sandbox });
  });

  const uids = async (app: EndpointServer) => {
    const response = await fetch(`${app.url}/micropub?q=syndicate-to`, {
      headers: { authorization: `Bearer ${app.token}`, accept: "application/json" },
    });
    return ((await response.json()) as { "syndicate-to": { uid: string }[] })["syndicate-to"].map(
      (t) => t.uid,
    );
  };
  const accountsOf = (app: EndpointServer) => {
    const accounts = app.server.host.accounts;
    assert.ok(accounts);
    return accounts;
  };
  const connect = (accessToken: string) =>
    accountsOf(first).connect(
      "mastodon",
      { instance: sandbox.url, accessToken },
      { signal: AbortSignal.timeout(10_000) },
    );

  it("sees an account the other connected, and sends with it", async () => {
    const account = await connect(token);
    assert.deepEqual(await uids(second), [], "not before it reads the accounts again");
    await accountsOf(second).sync();
    assert.deepEqual(await uids(second), [account.uid]);
    const post = await second.createPost({ content: "Sent by the second instance", targets: [account.uid] });
    const result = (await (
      await second.syndicate(`?source_url=${encodeURIComponent(post)}`)
    ).json()) as PostResult;
    assert.equal(result.status, "syndicated", JSON.stringify(result.targets));
  });

  it("rebuilds a reconnected account with its new token", async () => {
    sandbox.setAccessToken(newToken);
    const account = await connect(newToken);
    await accountsOf(second).sync();
    const post = await second.createPost({ content: "After the reconnect", targets: [account.uid] });
    const result = (await (
      await second.syndicate(`?source_url=${encodeURIComponent(post)}`)
    ).json()) as PostResult;
    assert.equal(result.status, "syndicated", JSON.stringify(result.targets));
    assert.equal(sandbox.statuses.length, 2);
  });

  it("drops an account the other disconnected", async () => {
    const [account] = await accountsOf(first).list();
    assert.ok(account);
    await accountsOf(first).remove(account.id);
    await accountsOf(second).sync();
    assert.deepEqual(await uids(second), []);
  });
});
