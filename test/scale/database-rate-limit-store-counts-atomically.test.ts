// The express-rate-limit store kept in the database (application.rateLimit.store: "database"):
// every hit is counted once however many stores (instances) count at the same time, a window
// starts afresh when it has passed, and limiters with different prefixes never share a count.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Options } from "express-rate-limit";
import type { Database } from "../../src/contract/database.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { openPostgres } from "../../src/server/database/postgres.ts";
import {
  DatabaseRateLimitStore,
  rateLimitMigrations,
  rateLimitStore,
} from "../../src/server/rate-limit-store.ts";
import { TestClock } from "../helpers/clock.ts";
import { engines } from "../helpers/databases.ts";

/** express-rate-limit calls init with its options; the store reads only windowMs. */
function storeOn(
  database: Database,
  prefix: string,
  windowMs: number,
  now?: () => number,
): DatabaseRateLimitStore {
  const store = new DatabaseRateLimitStore(database, { prefix, ...(now ? { now } : {}) });
  store.init({ windowMs } as Options);
  return store;
}

for (const engine of engines) {
  describe(`the database rate-limit store (${engine.name})`, () => {
    let database: Database;
    // A second connection to the same database stands for a second instance (PostgreSQL only:
    // PGlite lives in one process, where a second store on the same database is the equivalent).
    let other: Database;

    before(async () => {
      database = await engine.open();
      await migrate(database, rateLimitMigrations);
      if (engine.name === "postgres") {
        const location = await database.query<{ schema: string }>("SELECT current_schema() AS schema");
        other = await openPostgres(process.env.TEST_DATABASE_URL as string, {
          schema: location.rows[0]?.schema as string,
        });
      } else {
        other = database;
      }
    });

    after(async () => {
      if (other !== database) await other.close();
      await database.close();
    });

    it("counts hits one by one within a window that keeps its end", async () => {
      const store = storeOn(database, "a:", 60_000);
      const first = await store.increment("203.0.113.1");
      const second = await store.increment("203.0.113.1");
      const third = await store.increment("203.0.113.1");
      assert.deepEqual([first.totalHits, second.totalHits, third.totalHits], [1, 2, 3]);
      assert.ok(first.resetTime instanceof Date);
      assert.equal(third.resetTime?.getTime(), first.resetTime.getTime());
      const remaining = (first.resetTime.getTime() - Date.now()) / 1000;
      assert.ok(remaining > 50 && remaining <= 61, `the window ends in ${remaining} s, not about 60 s`);
      assert.equal((await store.get("203.0.113.1"))?.totalHits, 3);
      assert.equal(await store.get("203.0.113.99"), undefined);
    });

    it("counts every one of 60 simultaneous hits from two instances exactly once", async () => {
      const here = storeOn(database, "shared:", 60_000);
      const there = storeOn(other, "shared:", 60_000);
      const hits = await Promise.all(
        Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? here : there).increment("198.51.100.7")),
      );
      const totals = hits.map((hit) => hit.totalHits).sort((a, b) => a - b);
      assert.deepEqual(
        totals,
        Array.from({ length: 60 }, (_, i) => i + 1),
      );
      assert.equal((await there.get("198.51.100.7"))?.totalHits, 60);
    });

    it("starts a new window at 1 once the old one has passed", async () => {
      // The store counts at the test's clock (passed into the SQL), so the window passes when the
      // clock is moved, not after a sleep that a busy machine could make too short or too long.
      const clock = new TestClock();
      const store = storeOn(database, "short:", 1_000, clock.now);
      await store.increment("192.0.2.5");
      clock.advance(999);
      const before = await store.increment("192.0.2.5");
      assert.equal(before.totalHits, 2, "the window has not passed a millisecond before its end");
      clock.advance(1);
      assert.equal(await store.get("192.0.2.5"), undefined, "an expired window is not reported");
      const fresh = await store.increment("192.0.2.5");
      assert.equal(fresh.totalHits, 1);
      assert.ok((fresh.resetTime?.getTime() ?? 0) > (before.resetTime?.getTime() ?? 0));
    });

    it("gives a hit back with decrement, never below zero", async () => {
      const store = storeOn(database, "give:", 60_000);
      await store.increment("192.0.2.9");
      await store.increment("192.0.2.9");
      await store.decrement("192.0.2.9");
      assert.equal((await store.get("192.0.2.9"))?.totalHits, 1);
      await store.decrement("192.0.2.9");
      await store.decrement("192.0.2.9");
      assert.equal((await store.get("192.0.2.9"))?.totalHits, 0);
      assert.equal((await store.increment("192.0.2.9")).totalHits, 1);
    });

    it("keeps limiters apart by prefix, and resets one client or one limiter", async () => {
      const signIn = storeOn(database, "sign-in:", 60_000);
      const api = storeOn(database, "api:", 60_000);
      await signIn.increment("192.0.2.20");
      await signIn.increment("192.0.2.21");
      await api.increment("192.0.2.20");
      await api.increment("192.0.2.20");
      assert.equal((await signIn.get("192.0.2.20"))?.totalHits, 1);
      assert.equal((await api.get("192.0.2.20"))?.totalHits, 2);

      await signIn.resetKey("192.0.2.20");
      assert.equal(await signIn.get("192.0.2.20"), undefined);
      assert.equal((await api.get("192.0.2.20"))?.totalHits, 2, "resetKey left the other limiter alone");

      await api.resetAll();
      assert.equal(await api.get("192.0.2.20"), undefined);
      assert.equal((await signIn.get("192.0.2.21"))?.totalHits, 1, "resetAll left the other limiter alone");
    });

    it("declares its keys shared, not local, so express-rate-limit checks prefixes", () => {
      const store = storeOn(database, "flags:", 60_000);
      assert.equal(store.localKeys, false);
      assert.equal(store.prefix, "flags:");
    });
  });
}

describe("choosing the rate-limit store", () => {
  it('keeps "memory" to the limiter itself (the default)', () => {
    assert.equal(rateLimitStore("memory", null, "x:"), undefined);
  });

  it('refuses "database" without a database, saying what to set', () => {
    assert.throws(() => rateLimitStore("database", null, "x:"), /runs without a database.*"memory"/);
  });

  it("refuses a store without a prefix, which would mix limiters", () => {
    assert.throws(() => new DatabaseRateLimitStore({} as Database, { prefix: "" }), /needs a prefix/);
  });
});
