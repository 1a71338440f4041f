// Each WebSub subscription's secret is sealed at rest with the host's secret box (the connected
// accounts' AES-256-GCM box), bound to the subscription's id. A dump of the table holds no secret in
// clear, neither a new one nor one an older version stored in clear (sealed by sealAtRest, which the
// feeds run at each start). A hub's delivery signed with the secret still verifies after a restart (a
// new box from the same key) and after a key rotation's rekey (the new key alone); a sealed secret
// moved into another subscription's row does not open. Real database, our callback served over
// real HTTP through handleWebSubCallback, a hub in the test (test-hub.ts).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { listen, type RunningServer, readBody } from "../../../dev/sandbox/http-kit.ts";
import type { Database } from "../../../src/contract/database.ts";
import { EndpointSyndicate } from "../../../src/plugin/endpoint-syndicate.ts";
import { SecretBox, SecretBoxError } from "../../../src/server/accounts/secret-box.ts";
import { migrate } from "../../../src/server/database/migrate.ts";
import {
  handleWebSubCallback,
  type WebSubCallbackEvent,
} from "../../../src/sources/feeds/http/websub/callback.ts";
import { webSubMigrations } from "../../../src/sources/feeds/http/websub/migrations.ts";
import { SqlWebSubSubscriptionStore } from "../../../src/sources/feeds/http/websub/sql-subscription-store.ts";
import type { WebSubSubscription } from "../../../src/sources/feeds/http/websub/subscription-store.ts";
import { engines, pgliteEngine } from "../../helpers/databases.ts";
import { startTestServer } from "../../helpers/server.ts";
import { TestHub } from "./test-hub.ts";

const NOW = Date.UTC(2026, 10, 1);

for (const engine of engines) {
  describe(`WebSub subscription secrets at rest (${engine.name})`, () => {
    let database: Database;
    let hub: TestHub;
    let callbacks: RunningServer;
    let events: WebSubCallbackEvent[] = [];
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const fresh = randomBytes(32).toString("base64url");
    const legacy = randomBytes(32).toString("base64url");
    /** The store of the running process: replaced to stand for a restart. */
    let store: SqlWebSubSubscriptionStore;
    const storeWith = (box: SecretBox) => new SqlWebSubSubscriptionStore(database, () => box);
    const subscription = (id: string, secret: string): WebSubSubscription => ({
      id,
      feedKey: `feed-${id}`,
      hub: "https://hub.example/",
      topic: "https://blog.example/feed.xml",
      secret,
      state: "active",
      requestedAt: NOW,
      leaseSeconds: 3600,
      expiresAt: NOW + 3600_000,
      renewAt: NOW + 3540_000,
      lastError: null,
    });
    const dump = async () =>
      (
        await database.query<{ line: string }>(
          "SELECT row_to_json(w)::text AS line FROM websub_subscriptions w ORDER BY id",
        )
      ).rows
        .map((row) => row.line)
        .join("\n");
    const stored = async () =>
      (
        await database.query<{ secret: string }>("SELECT secret FROM websub_subscriptions ORDER BY id")
      ).rows.map((row) => row.secret);
    /** A delivery signed with `secret` for subscription `id`, and what our callback made of it. */
    const deliver = async (id: string, secret: string) => {
      const form = new URLSearchParams({
        "hub.callback": `${callbacks.url}/websub/${id}`,
        "hub.secret": secret,
      });
      assert.equal(await hub.publish(form, "<feed/>"), 202);
      return events.at(-1)?.kind;
    };

    before(async () => {
      database = await engine.open();
      await migrate(database, webSubMigrations);
      hub = new TestHub();
      await hub.start();
      callbacks = await listen(async (request, response) => {
        const url = new URL(request.url ?? "/", "http://x");
        const { response: answer, event } = await handleWebSubCallback(
          {
            method: request.method ?? "GET",
            subscriptionId: url.pathname.split("/").pop() ?? "",
            query: Object.fromEntries(url.searchParams),
            headers: request.headers,
            readBody: () => readBody(request, 1024 * 1024),
          },
          { store, now: () => NOW },
        );
        if (event) events.push(event);
        response.writeHead(answer.status, answer.headers).end(answer.body);
        if (!request.readableEnded) request.resume();
      });
      store = storeWith(new SecretBox(oldKey));
    });
    after(async () => {
      await Promise.all([hub?.server.close(), callbacks?.close()]);
      await database?.close();
    });

    it("holds no secret in clear: a new one is sealed, one stored in clear before is sealed at start", async () => {
      await store.save(subscription("a-fresh", fresh));
      // As a version before sealing wrote it.
      await new SqlWebSubSubscriptionStore(database).save(subscription("b-legacy", legacy));
      assert.ok((await dump()).includes(legacy), "the older version's row is in clear");
      assert.equal((await store.get("b-legacy"))?.secret, legacy, "and still read before the start seals it");
      assert.equal(await store.sealAtRest(), 1);
      assert.equal(await store.sealAtRest(), 0, "nothing left to seal");
      const text = await dump();
      assert.ok(!text.includes(fresh) && !text.includes(legacy), "no secret in the dump");
      const box = new SecretBox(oldKey);
      assert.ok((await stored()).every((value) => box.isSealed(value) && box.isCurrent(value)));
      assert.equal(await deliver("a-fresh", fresh), "notified");
      assert.equal(await deliver("b-legacy", legacy), "notified");
    });

    it("verifies a signed delivery after a restart, and ignores one signed with another secret", async () => {
      store = storeWith(new SecretBox(oldKey));
      events = [];
      assert.equal(await deliver("a-fresh", fresh), "notified");
      assert.equal(await deliver("b-legacy", legacy), "notified");
      assert.equal(await deliver("a-fresh", legacy), "ignored", "signed with another subscription's secret");
    });

    it("verifies with the new key alone after rekey", async () => {
      assert.equal(await storeWith(new SecretBox(newKey, [oldKey])).sealAtRest(), 2);
      const alone = new SecretBox(newKey);
      assert.ok((await stored()).every((value) => alone.isCurrent(value)));
      store = storeWith(alone);
      assert.equal(await deliver("a-fresh", fresh), "notified");
      assert.equal(await deliver("b-legacy", legacy), "notified");
      const text = await dump();
      assert.ok(!text.includes(fresh) && !text.includes(legacy));
    });

    it("does not open a sealed secret moved into another subscription's row", async () => {
      await database.query(
        "UPDATE websub_subscriptions SET secret = (SELECT secret FROM websub_subscriptions WHERE id = 'a-fresh') WHERE id = 'b-legacy'",
      );
      await assert.rejects(store.get("b-legacy"), SecretBoxError);
      assert.equal((await store.get("a-fresh"))?.secret, fresh);
    });
  });
}

describe("a server's start seals the subscription secrets an older version stored in clear", () => {
  it("leaves none in clear once it listens", async () => {
    const database = await pgliteEngine.open();
    const key = randomBytes(32);
    const secret = randomBytes(32).toString("base64url");
    try {
      await migrate(database, webSubMigrations);
      // Ended: the start has no hub to answer, only a row to seal.
      await new SqlWebSubSubscriptionStore(database).save({
        id: "older",
        feedKey: "feed-older",
        hub: "https://hub.example/",
        topic: "https://blog.example/feed.xml",
        secret,
        state: "ended",
        requestedAt: NOW,
        leaseSeconds: null,
        expiresAt: null,
        renewAt: null,
        lastError: null,
      });
      const server = await startTestServer({
        engine: { ...pgliteEngine, open: async () => ({ ...database, close: async () => {} }) },
        config: { plugins: [] },
        plugins: [new EndpointSyndicate({}, { env: {} })],
        env: { ACCOUNT_SECRETS_KEY: key.toString("base64url") },
      });
      await server.close();
      const { rows } = await database.query<{ secret: string }>("SELECT secret FROM websub_subscriptions");
      const box = new SecretBox(key);
      assert.equal(rows.length, 1);
      assert.ok(rows.every((row) => box.isSealed(row.secret) && box.isCurrent(row.secret)));
      assert.equal((await new SqlWebSubSubscriptionStore(database, () => box).get("older"))?.secret, secret);
    } finally {
      await database.close();
    }
  });
});
