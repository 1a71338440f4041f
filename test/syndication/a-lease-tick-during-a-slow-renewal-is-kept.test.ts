// A renewal tick that comes while the previous renewal is still waiting for the database is not
// dropped: one more renewal follows, from that tick's time. Dropping it let a slow database (or a
// busy machine, between PostgreSQL's commit and the renewal's answer) leave the lease a tick behind.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { postMigrations } from "../../src/server/posts/migrations.ts";
import { syndicationMigrations } from "../../src/syndication/migrations.ts";
import { Lease } from "../../src/syndication/runs/lease.ts";
import { TestClock } from "../helpers/clock.ts";
import { engines } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { deferred, silent } from "./syndication-fixture.ts";

const LEASE_MS = 3_000;
const RENEWAL_MS = LEASE_MS / 3;

for (const engine of engines) {
  describe(`a lease renewal held up by the database (${engine.name})`, () => {
    let database: Database;
    before(async () => {
      database = await engine.open();
      await migrate(database, [...postMigrations, ...syndicationMigrations]);
    });
    after(() => database.close());

    it("renews again for the tick that came meanwhile, at that tick's time", async () => {
      const clock = new TestClock();
      // The renewal's UPDATE waits at this gate, as on a database that answers late.
      let gate = deferred();
      const slow: Database = {
        ...database,
        query: (async (sql: string, params?: unknown[]) => {
          if (/^UPDATE syndication_lease SET expires_at/.test(sql.trim())) await gate.promise;
          return database.query(sql, params);
        }) as Database["query"],
      };
      const lease = new Lease(slow, silent, LEASE_MS, "batch", { clock: clock.now, every: clock.every });
      const held = await lease.acquire("me", "manual", async (tx) => {
        const { rows } = await tx.query<{ id: string }>(
          "INSERT INTO syndication_runs (kind, trigger, holder) VALUES ('batch', 'manual', 'me') RETURNING id::text AS id",
        );
        return rows[0]?.id ?? "";
      });
      assert.ok(held);
      held.keepAlive(() => assert.fail("the lease was lost"));
      const expiry = async () =>
        (
          await database.query<{ expires_at: Date }>(
            "SELECT expires_at FROM syndication_lease WHERE name = 'batch'",
          )
        ).rows[0]?.expires_at.getTime();

      clock.advance(RENEWAL_MS); // the first renewal starts and waits at the gate
      clock.advance(RENEWAL_MS); // a tick while it waits
      const released = gate;
      gate = deferred();
      gate.resolve();
      released.resolve();
      await eventually("the lease is renewed from the second tick", async () =>
        (await expiry()) === clock.now() + LEASE_MS ? true : undefined,
      );
      await held.release();
    });
  });
}
