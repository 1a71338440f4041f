// The target health (decision 0048) on each engine, through its store: a 401 or 403 starts the
// refusal, kept from the first one through later failures until a success; a 429 says until when;
// a check sets checked_at and a send does not; a success clears everything. A process that knows a
// target to be well writes nothing for its sends on PGlite (it alone owns the database), and on
// PostgreSQL clears only what another instance recorded since.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { postMigrations } from "../../src/server/posts/migrations.ts";
import { databaseNow } from "../../src/syndication/database-now.ts";
import { syndicationMigrations } from "../../src/syndication/migrations.ts";
import {
  healthState,
  isTargetWide,
  type TargetHealth,
  TargetHealthStore,
} from "../../src/syndication/runs/target-health.ts";
import { TestClock } from "../helpers/clock.ts";
import { engines } from "../helpers/databases.ts";

const UID = "https://social.example/@me";
const OTHER = "https://bsky.example/me";

describe("healthState", () => {
  const base: TargetHealth = {
    uid: UID,
    checkedAt: null,
    okAt: null,
    error: null,
    errorStatus: null,
    errorAt: null,
    refusedSince: null,
    rateLimitedUntil: null,
  };
  const now = Date.parse("2026-11-29T10:00:00Z");

  it("says unchecked, ok, failing, rate limited or refused, the refusal first", () => {
    assert.equal(healthState(undefined, now), "unchecked");
    assert.equal(healthState(base, now), "unchecked");
    assert.equal(healthState({ ...base, okAt: new Date(now) }, now), "ok");
    assert.equal(healthState({ ...base, okAt: new Date(now), error: "timed out" }, now), "failing");
    const limited = { ...base, error: "429", rateLimitedUntil: new Date(now + 1) };
    assert.equal(healthState(limited, now), "rate_limited");
    assert.equal(healthState(limited, now + 1), "failing");
    assert.equal(healthState({ ...base, okAt: new Date(now), rateLimitedUntil: new Date(now) }, now), "ok");
    assert.equal(healthState({ ...limited, refusedSince: new Date(now) }, now), "refused");
    const future = { ...base, rateLimitedUntil: new Date(Date.now() + 3_600_000) };
    assert.equal(healthState(future), "rate_limited");
  });
});

describe("isTargetWide", () => {
  it("counts refusals, rate limits, server errors and unreachable services, not a post's own refusal", () => {
    for (const status of [401, 403, 429, 500, 502, 503])
      assert.equal(isTargetWide({ error: "e", status }), true, `${status}`);
    for (const status of [400, 404, 409, 410, 413, 422, 499])
      assert.equal(isTargetWide({ error: "e", status }), false, `${status}`);
    assert.equal(isTargetWide({ error: "connection refused" }), true);
    assert.equal(isTargetWide({ error: "connection refused", permanent: false }), true);
    assert.equal(isTargetWide({ error: "no such status", permanent: true }), false);
    assert.equal(isTargetWide({ error: "bad gateway", status: 502, permanent: true }), true);
  });
});

for (const engine of engines) {
  describe(`the target health store (${engine.name})`, () => {
    /** A migrated database of this engine and a clock for it, the database closed when `use` ends. */
    async function withDatabase(use: (database: Database, clock: TestClock) => Promise<void>): Promise<void> {
      const database = await engine.open();
      try {
        await migrate(database, [...postMigrations, ...syndicationMigrations]);
        await use(database, new TestClock());
      } finally {
        await database.close();
      }
    }
    const at = (clock: TestClock) => new Date(clock.now());

    it("keeps a refusal from its first 401 through later failures, until a success clears it all", async () => {
      await withDatabase(async (database, clock) => {
        const store = new TargetHealthStore(database, databaseNow(clock.now));
        const first = at(clock);
        await store.recordFailure(UID, { error: "401 Unauthorized", status: 401 }, { checked: false });
        let health = (await store.all()).get(UID);
        assert.deepEqual(health, {
          uid: UID,
          checkedAt: null,
          okAt: null,
          error: "401 Unauthorized",
          errorStatus: 401,
          errorAt: first,
          refusedSince: first,
          rateLimitedUntil: null,
        });
        clock.advance(60_000);
        await store.recordFailure(UID, { error: "403 Forbidden", status: 403 }, { checked: true });
        clock.advance(60_000);
        await store.recordFailure(UID, { error: "503 down", status: 503 }, { checked: false });
        health = (await store.all()).get(UID);
        assert.deepEqual(health, {
          uid: UID,
          checkedAt: new Date(first.getTime() + 60_000),
          okAt: null,
          error: "503 down",
          errorStatus: 503,
          errorAt: at(clock),
          refusedSince: first,
          rateLimitedUntil: null,
        });
        assert.equal(healthState(health, clock.now()), "refused");
        clock.advance(60_000);
        await store.recordSuccess(UID, { checked: true });
        health = (await store.all()).get(UID);
        assert.deepEqual(health, {
          uid: UID,
          checkedAt: at(clock),
          okAt: at(clock),
          error: null,
          errorStatus: null,
          errorAt: null,
          refusedSince: null,
          rateLimitedUntil: null,
        });
        assert.equal(healthState(health, clock.now()), "ok");
      });
    });

    it("a 429 sets until when, a later other error keeps it, and a 429 without a time clears it", async () => {
      await withDatabase(async (database, clock) => {
        const store = new TargetHealthStore(database, databaseNow(clock.now));
        const reset = new Date(clock.now() + 15 * 60_000);
        await store.recordFailure(
          UID,
          { error: "429 slow down", status: 429, retryAt: reset },
          { checked: true },
        );
        await store.recordFailure(OTHER, { error: "500", status: 500, retryAt: reset }, { checked: true });
        let all = await store.all();
        assert.deepEqual(all.get(UID)?.rateLimitedUntil, reset);
        assert.equal(all.get(UID)?.refusedSince, null);
        assert.equal(all.get(OTHER)?.rateLimitedUntil, null, "only a 429 sets a rate limit");
        assert.equal(healthState(all.get(UID), clock.now()), "rate_limited");
        clock.advance(60_000);
        await store.recordFailure(UID, { error: "timed out" }, { checked: false });
        all = await store.all();
        assert.deepEqual(all.get(UID)?.rateLimitedUntil, reset);
        assert.equal(all.get(UID)?.errorStatus, null);
        assert.equal(all.get(UID)?.error, "timed out");
        assert.deepEqual(
          all.get(UID)?.checkedAt,
          new Date(clock.now() - 60_000),
          "a send keeps the last check",
        );
        await store.recordFailure(UID, { error: "429 again", status: 429 }, { checked: false });
        assert.equal((await store.all()).get(UID)?.rateLimitedUntil, null);
      });
    });

    it("keeps a target's error as text of its own: control characters made spaces, cut to its length", async () => {
      await withDatabase(async (database, clock) => {
        const store = new TargetHealthStore(database, databaseNow(clock.now));
        await store.recordFailure(UID, { error: "bad\r\nline\u001b[31m", status: 500 }, { checked: false });
        assert.equal((await store.all()).get(UID)?.error, "bad line [31m");
        await store.recordFailure(UID, { error: "x".repeat(5000), status: 500 }, { checked: false });
        const kept = (await store.all()).get(UID)?.error ?? "";
        assert.ok(kept.length < 5000 && kept.endsWith("…"), `${kept.length}`);
      });
    });

    it("a send's success keeps the last check's time; the first one creates the row", async () => {
      await withDatabase(async (database, clock) => {
        const store = new TargetHealthStore(database, databaseNow(clock.now));
        await store.recordSuccess(OTHER, { checked: false });
        assert.deepEqual((await store.all()).get(OTHER), {
          uid: OTHER,
          checkedAt: null,
          okAt: at(clock),
          error: null,
          errorStatus: null,
          errorAt: null,
          refusedSince: null,
          rateLimitedUntil: null,
        });
        const checkedAt = at(clock);
        await store.recordFailure(UID, { error: "500", status: 500 }, { checked: true });
        assert.equal(store.knownWell(UID), false);
        clock.advance(60_000);
        await store.recordSuccess(UID, { checked: false });
        const health = (await store.all()).get(UID);
        assert.deepEqual(health?.checkedAt, checkedAt);
        assert.deepEqual(health?.okAt, at(clock));
        assert.equal(health?.error, null);
        assert.equal(store.knownWell(UID), true);
      });
    });

    it("knows which targets are well from its reads and writes, and forgets one at its failure", async () => {
      await withDatabase(async (database, clock) => {
        const writer = new TargetHealthStore(database, databaseNow(clock.now));
        const reader = new TargetHealthStore(database, databaseNow(clock.now));
        await writer.recordSuccess(UID, { checked: true });
        await writer.recordFailure(OTHER, { error: "500", status: 500 }, { checked: true });
        assert.equal(writer.knownWell(UID), true);
        assert.equal(writer.knownWell(OTHER), false);
        assert.equal(reader.knownWell(UID), false, "nothing read yet");
        await reader.all();
        assert.equal(reader.knownWell(UID), true);
        assert.equal(reader.knownWell(OTHER), false);
        await writer.recordFailure(UID, { error: "500", status: 500 }, { checked: false });
        assert.equal(writer.knownWell(UID), false);
        await reader.all();
        assert.equal(reader.knownWell(UID), false, "a read forgets a target found failing");
      });
    });

    it(
      engine.name === "pglite"
        ? "writes nothing for a send to a target it knows to be well (it alone owns the database)"
        : "clears, at a send to a target it knows to be well, what another instance recorded since",
      async () => {
        await withDatabase(async (database, clock) => {
          const mine = new TargetHealthStore(database, databaseNow(clock.now));
          const theirs = new TargetHealthStore(database, databaseNow(clock.now));
          await mine.recordSuccess(UID, { checked: true });
          await mine.recordSuccess(OTHER, { checked: true });
          const wellAt = at(clock);
          clock.advance(60_000);
          await theirs.recordFailure(UID, { error: "401 Unauthorized", status: 401 }, { checked: true });
          clock.advance(60_000);
          await mine.recordSuccess(UID, { checked: false });
          await mine.recordSuccess(OTHER, { checked: false });
          const all = await mine.all();
          assert.deepEqual(all.get(OTHER)?.okAt, wellAt, "a target still well is not written");
          if (engine.name === "pglite") {
            assert.equal(all.get(UID)?.error, "401 Unauthorized");
            assert.deepEqual(all.get(UID)?.okAt, wellAt);
          } else {
            assert.equal(all.get(UID)?.error, null);
            assert.equal(all.get(UID)?.refusedSince, null);
            assert.deepEqual(all.get(UID)?.okAt, at(clock));
            assert.deepEqual(all.get(UID)?.checkedAt, new Date(wellAt.getTime() + 60_000));
          }
        });
      },
    );

    it(
      engine.name === "pglite"
        ? "gives the post's write-back no statement to run alongside"
        : "gives the post's write-back the clearing of what another instance recorded, for the uids given",
      async () => {
        await withDatabase(async (database, clock) => {
          const store = new TargetHealthStore(database, databaseNow(clock.now));
          assert.equal(store.wellAgain([]), undefined);
          const statement = store.wellAgain([UID, OTHER, UID]);
          if (engine.name === "pglite") {
            assert.equal(statement, undefined);
            return;
          }
          assert.ok(statement);
          const third = "https://third.example/@me";
          for (const uid of [UID, OTHER, third])
            await store.recordFailure(
              uid,
              { error: "429", status: 429, retryAt: new Date(clock.now() + 1) },
              {
                checked: true,
              },
            );
          await store.recordFailure(OTHER, { error: "403", status: 403 }, { checked: true });
          clock.advance(60_000);
          const later = store.wellAgain([UID, OTHER, UID]);
          assert.ok(later);
          assert.equal(later.returning, "NULL::json");
          // As the write-back numbers it: after one parameter of its own.
          const result = await database.query<{ alongside: unknown }>(
            `WITH ${later.with(2)} SELECT $1::int AS one, ${later.returning} AS alongside`,
            [1, ...later.params],
          );
          assert.equal(result.rows[0]?.alongside, null);
          const all = await store.all();
          for (const uid of [UID, OTHER]) {
            assert.equal(all.get(uid)?.error, null, uid);
            assert.equal(all.get(uid)?.refusedSince, null, uid);
            assert.equal(all.get(uid)?.rateLimitedUntil, null, uid);
            assert.deepEqual(all.get(uid)?.okAt, at(clock), uid);
          }
          assert.equal(all.get(third)?.error, "429", "a uid not given is left alone");
        });
      },
    );
  });
}
