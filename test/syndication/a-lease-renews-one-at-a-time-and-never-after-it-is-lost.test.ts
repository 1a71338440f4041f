// A held lease renews one renewal at a time: ticks that come while one waits for the database add one
// renewal after it, never a second at once, and nothing renews without a tick. Once the lease is
// lost, a tick does nothing: the run was told once (onLost) and is stopping.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { postMigrations } from "../../src/server/posts/migrations.ts";
import { syndicationMigrations } from "../../src/syndication/migrations.ts";
import { Lease } from "../../src/syndication/runs/lease.ts";
import { TestClock } from "../helpers/clock.ts";
import { engines } from "../helpers/databases.ts";
import { until } from "../helpers/eventually.ts";
import { deferred, silent } from "./syndication-fixture.ts";

const LEASE_MS = 3_000;
const RENEWAL_MS = LEASE_MS / 3;
const RENEWAL = /^UPDATE syndication_lease SET expires_at/;

/** A few turns of the event loop and a round trip to the database: time for a renewal to start. */
async function settle(database: Database): Promise<void> {
  for (let turn = 0; turn < 3; turn += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    await database.query("SELECT 1");
  }
}

for (const engine of engines) {
  describe(`a held lease's renewals (${engine.name})`, () => {
    let database: Database;
    before(async () => {
      database = await engine.open();
      await migrate(database, [...postMigrations, ...syndicationMigrations]);
    });
    after(() => database.close());

    /** A lease held through a database whose renewals wait at `gate` and are counted. */
    const held = async (gate: Promise<void>) => {
      const clock = new TestClock();
      const renewals = { started: 0, finished: 0, waiting: 0, mostAtOnce: 0 };
      const counted: Database = {
        ...database,
        query: (async (sql: string, params?: unknown[]) => {
          if (!RENEWAL.test(sql.trim())) return database.query(sql, params);
          renewals.started += 1;
          renewals.waiting += 1;
          renewals.mostAtOnce = Math.max(renewals.mostAtOnce, renewals.waiting);
          try {
            await gate;
            return await database.query(sql, params);
          } finally {
            renewals.waiting -= 1;
            renewals.finished += 1;
          }
        }) as Database["query"],
      };
      await database.query("DELETE FROM syndication_lease");
      const lease = new Lease(counted, silent, LEASE_MS, "batch", { clock: clock.now, every: clock.every });
      const acquired = await lease.acquire("me", "manual", async (tx) => {
        const { rows } = await tx.query<{ id: string }>(
          "INSERT INTO syndication_runs (kind, trigger, holder) VALUES ('batch', 'manual', 'me') RETURNING id::text AS id",
        );
        return rows[0]?.id ?? "";
      });
      assert.ok(acquired);
      return { clock, renewals, lease: acquired };
    };

    it("starts no renewal while one waits, one more after it for the ticks that came, then none without a tick", async () => {
      const gate = deferred();
      const { clock, renewals, lease } = await held(gate.promise);
      lease.keepAlive(() => assert.fail("the lease was lost"));

      clock.advance(RENEWAL_MS);
      await settle(database);
      assert.equal(renewals.started, 1, "the first tick starts a renewal");
      clock.advance(RENEWAL_MS);
      clock.advance(RENEWAL_MS);
      await settle(database);
      assert.equal(renewals.started, 1, "two ticks while it waits start nothing at once");

      gate.resolve();
      await until("the renewal for the ticks that came meanwhile has finished", () => renewals.finished >= 2);
      await settle(database);
      assert.equal(renewals.started, 2, "no renewal follows without another tick");
      assert.equal(renewals.mostAtOnce, 1, "never two renewals at once");
      await lease.release();
    });

    it("does nothing at a tick once the lease is lost, and tells the run nothing more", async () => {
      const gate = deferred();
      gate.resolve();
      const { clock, renewals, lease } = await held(gate.promise);
      let told = 0;
      lease.keepAlive(() => {
        told += 1;
      });
      // Another process took the lease over: the renewal finds it gone.
      await database.query("DELETE FROM syndication_lease");
      assert.equal(await lease.renew(), false);
      assert.equal(lease.lost, true);
      const before = renewals.started;

      clock.advance(RENEWAL_MS);
      await settle(database);
      assert.equal(renewals.started, before, "a tick after the loss renews nothing");
      assert.equal(told, 0, "nor does it tell the run again that the lease is lost");
      await lease.release();
    });
  });
}
