// The batch lease, asked directly: one holder at a time across instances, taken over only once it
// lapsed (by the clock it is given, so that no test waits), never extended or freed by a holder that
// lost it, and kept through a database that cannot be reached only as long as its last renewal
// promised. A slip lets two batches run side by side (each post then waits on the other's claims, or
// a lost holder frees the lease of the batch that took it over) or stops a healthy batch halfway.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import type { Database, Queryable } from "../../src/contract/database.ts";
import type { Logger } from "../../src/contract/logger.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { postMigrations } from "../../src/server/posts/migrations.ts";
import { syndicationMigrations } from "../../src/syndication/migrations.ts";
import { DEFAULT_LEASE_MS, Lease } from "../../src/syndication/runs/lease.ts";
import { TestClock } from "../helpers/clock.ts";
import { engines } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";

const LEASE_MS = 9_000;

class RecordingLogger implements Logger {
  readonly lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  debug(): void {}
  info(): void {}
  warn(message: string, fields?: Record<string, unknown>): void {
    this.lines.push({ level: "warn", message, ...(fields ? { fields } : {}) });
  }
  error(message: string, fields?: Record<string, unknown>): void {
    this.lines.push({ level: "error", message, ...(fields ? { fields } : {}) });
  }
}

for (const engine of engines) {
  describe(`one batch lease at a time until released or lapsed (${engine.name})`, () => {
    let database: Database;
    let clock: TestClock;
    let logger: RecordingLogger;
    const starts: string[] = [];
    before(async () => {
      database = await engine.open();
      await migrate(database, [...postMigrations, ...syndicationMigrations]);
    });
    beforeEach(async () => {
      clock = new TestClock();
      logger = new RecordingLogger();
      starts.length = 0;
      await database.query("DELETE FROM syndication_lease");
    });
    after(() => database.close());

    const lease = (name = "batch", on: Database = database) =>
      new Lease(on, logger, LEASE_MS, name, { clock: clock.now, every: clock.every });
    const startRun = (holder: string) => async (tx: Queryable) => {
      starts.push(holder);
      const { rows } = await tx.query<{ id: string }>(
        "INSERT INTO syndication_runs (kind, trigger, holder) VALUES ('batch', 'manual', $1) RETURNING id::text AS id",
        [holder],
      );
      return rows[0]?.id ?? "";
    };
    /** The test database, refusing every query while `down` is set (as when it cannot be reached). */
    const outOfReachWhenTold = () => {
      const flaky: { down: boolean; database: Database } = {
        down: false,
        database: {
          ...database,
          query: (async (sql: string, params?: unknown[]) => {
            if (flaky.down) throw new Error("connection refused");
            return database.query(sql, params);
          }) as Database["query"],
        },
      };
      return flaky;
    };
    const row = async () =>
      (
        await database.query<{ holder: string; run_id: string | null; expires_at: Date; acquired_at: Date }>(
          "SELECT holder, run_id::text AS run_id, expires_at, acquired_at FROM syndication_lease WHERE name = 'batch'",
        )
      ).rows[0];

    it("a live lease refuses every other taker, and runs none of their starts", async () => {
      const held = await lease().acquire("a", "manual", startRun("a"));
      assert.ok(held);
      clock.advance(LEASE_MS - 1);
      assert.equal(await lease().acquire("b", "schedule", startRun("b")), null);
      clock.advance(1);
      assert.equal(await lease().acquire("b", "schedule", startRun("b")), null, "at its very expiry");
      assert.deepEqual(starts, ["a"]);
      const stored = await row();
      assert.equal(stored?.holder, "a");
      assert.equal(stored?.run_id, held.runId, "the lease names its run");
      assert.equal(stored?.acquired_at.getTime(), clock.now() - LEASE_MS);
    });

    it("says who holds it, since when, until when, and how long to wait (at least a second)", async () => {
      const held = await lease().acquire("a", "webhook", startRun("a"));
      assert.ok(held);
      const since = clock.now();
      assert.deepEqual(await lease().current(), {
        runId: held.runId,
        trigger: "webhook",
        holder: "a",
        since: new Date(since),
        expiresAt: new Date(since + LEASE_MS),
        retryAfterSeconds: LEASE_MS / 1000,
      });
      clock.advance(LEASE_MS - 2_500);
      assert.equal((await lease().current())?.retryAfterSeconds, 3, "2.5 s left: 3");
      clock.advance(2_400);
      assert.equal((await lease().current())?.retryAfterSeconds, 1);
      clock.advance(100);
      assert.equal(await lease().current(), null, "lapsed");
    });

    it("a lapsed lease is taken over; its old holder can then neither renew nor free it", async () => {
      const first = await lease().acquire("a", "manual", startRun("a"));
      assert.ok(first);
      clock.advance(LEASE_MS + 1);
      assert.equal(await lease().current(), null);
      const second = await lease().acquire("b", "schedule", startRun("b"));
      assert.ok(second, "taken over once lapsed");
      assert.notEqual(second.runId, first.runId);
      const stored = await row();
      assert.equal(stored?.holder, "b");
      assert.equal(stored?.run_id, second.runId);
      assert.equal(stored?.acquired_at.getTime(), clock.now());
      assert.equal(stored?.expires_at.getTime(), clock.now() + LEASE_MS);
      assert.equal(await first.renew(), false);
      assert.equal(first.lost, true);
      assert.deepEqual(logger.lines, [
        {
          level: "warn",
          message: "The syndication lease was taken over; this run stops after its current post",
          fields: { runId: first.runId },
        },
      ]);
      await first.release();
      assert.equal((await row())?.holder, "b", "the old holder's release leaves the new lease");
      assert.equal((await lease().current())?.holder, "b");
    });

    it("a renewal extends it from the clock's time; a released lease is free at once", async () => {
      const held = await lease().acquire("a", "manual", startRun("a"));
      assert.ok(held);
      clock.advance(LEASE_MS - 1_000);
      assert.equal(await held.renew(), true);
      assert.equal(held.lost, false);
      assert.equal((await row())?.expires_at.getTime(), clock.now() + LEASE_MS);
      clock.advance(LEASE_MS - 1_000);
      assert.equal(
        await lease().acquire("b", "manual", startRun("b")),
        null,
        "still held thanks to the renewal",
      );
      await held.release();
      await held.release();
      assert.equal(await row(), undefined);
      assert.equal(await held.renew(), false, "a released lease is not renewed");
      assert.equal(held.lost, false, "released, not lost: nothing to tell");
      assert.deepEqual(logger.lines, [], "no taken-over warning for its own release");
      held.keepAlive(() => assert.fail("a released lease is never lost"));
      assert.equal(clock.nextTimerIn(), undefined, "a released lease starts no renewals");
      assert.ok(await lease().acquire("b", "manual", startRun("b")));
    });

    it("a second release asks the database nothing, so it succeeds with the database gone", async () => {
      // A shutdown releases the lease its run already released, after the database closed.
      const flaky = outOfReachWhenTold();
      const held = await lease("batch", flaky.database).acquire("a", "manual", startRun("a"));
      assert.ok(held);
      await held.release();
      assert.equal(await row(), undefined);
      flaky.down = true;
      await held.release();
    });

    it("a lease row that names no run reads with an empty run id, not null", async () => {
      // acquire() writes the row before its run exists (in one transaction); the column allows NULL.
      await database.query(
        "INSERT INTO syndication_lease (name, holder, run_id, trigger, acquired_at, expires_at) VALUES ('batch', 'a', NULL, 'manual', $1, $2)",
        [clock.date(), new Date(clock.now() + LEASE_MS)],
      );
      assert.equal((await lease().current())?.runId, "");
    });

    it("kept alive every third of its length, it never lapses; released, the renewals stop", async () => {
      const held = await lease().acquire("a", "manual", startRun("a"));
      assert.ok(held);
      let lost = 0;
      held.keepAlive(() => {
        lost += 1;
      });
      held.keepAlive(() => {
        lost += 100;
      });
      assert.equal(clock.nextTimerIn(), LEASE_MS / 3, "one timer, every third of the lease");
      for (let tick = 1; tick <= 6; tick += 1) {
        clock.advance(LEASE_MS / 3);
        const due = clock.now() + LEASE_MS;
        await eventually(`renewal ${tick}`, async () =>
          (await row())?.expires_at.getTime() === due ? true : undefined,
        );
      }
      assert.equal(await lease().acquire("b", "manual", startRun("b")), null);
      await held.release();
      assert.equal(clock.nextTimerIn(), undefined, "no renewal left once released");
      assert.equal(lost, 0);
    });

    it("a holder whose lease was taken over is told once, and stops renewing", async () => {
      const held = await lease().acquire("a", "manual", startRun("a"));
      assert.ok(held);
      let lost = 0;
      held.keepAlive(() => {
        lost += 1;
      });
      // Another instance took the lease over (as after a pause longer than the lease).
      await database.query("UPDATE syndication_lease SET run_id = NULL, holder = 'b'");
      clock.advance(LEASE_MS / 3);
      await eventually("told the lease is lost", async () => (lost > 0 ? true : undefined));
      assert.equal(held.lost, true);
      assert.equal(clock.nextTimerIn(), undefined, "no more renewals");
      clock.advance(LEASE_MS);
      assert.equal(lost, 1);
    });

    it("a database out of reach keeps the lease until its last renewal's promise, then loses it", async () => {
      const flaky = outOfReachWhenTold();
      const held = await lease("batch", flaky.database).acquire("a", "manual", startRun("a"));
      assert.ok(held);
      clock.advance(3_000);
      assert.equal(await held.renew(), true);
      flaky.down = true;
      clock.advance(LEASE_MS - 1);
      assert.equal(await held.renew(), true, "the renewal 3 s in holds it until 12 s");
      assert.equal(held.lost, false);
      assert.deepEqual(logger.lines, [
        {
          level: "warn",
          message: "Could not renew the syndication lease; will try again",
          fields: { runId: held.runId, error: "connection refused" },
        },
      ]);
      clock.advance(1);
      assert.equal(await held.renew(), false);
      assert.equal(held.lost, true);
      assert.deepEqual(logger.lines[1], {
        level: "error",
        message: "The syndication lease expired before it could be renewed; this run stops",
        fields: { runId: held.runId },
      });
      flaky.down = false;
      assert.equal(await held.renew(), false, "lost stays lost");
    });

    it("a database out of reach from the start keeps the lease for its first length", async () => {
      const flaky = outOfReachWhenTold();
      const held = await lease("batch", flaky.database).acquire("a", "manual", startRun("a"));
      assert.ok(held);
      flaky.down = true;
      clock.advance(LEASE_MS - 1);
      assert.equal(await held.renew(), true, "taken at 0, it holds until 9 s");
      clock.advance(1);
      assert.equal(await held.renew(), false);
      assert.equal(held.lost, true);
    });

    it("a start that fails takes no lease", async () => {
      await assert.rejects(
        lease().acquire("a", "manual", async () => {
          throw new Error("no run");
        }),
        /no run/,
      );
      assert.equal(await row(), undefined);
      assert.ok(await lease().acquire("b", "manual", startRun("b")));
    });

    it("leases of other names are apart, and clear() frees this one whoever holds it", async () => {
      assert.ok(await lease().acquire("a", "manual", startRun("a")));
      const other = await lease("feeds").acquire("b", "manual", startRun("b"));
      assert.ok(other, "another name is another lease");
      assert.equal((await lease("feeds").current())?.holder, "b");
      await lease().clear();
      assert.equal(await lease().current(), null);
      assert.equal((await lease("feeds").current())?.holder, "b", "only its own name");
    });

    it("lasts 30 s unless told otherwise", async () => {
      assert.equal(DEFAULT_LEASE_MS, 30_000);
      const held = await new Lease(database, logger, undefined, undefined, { clock: clock.now }).acquire(
        "a",
        "manual",
        startRun("a"),
      );
      assert.ok(held);
      assert.equal((await row())?.expires_at.getTime(), clock.now() + 30_000);
      await held.release();
    });
  });
}
