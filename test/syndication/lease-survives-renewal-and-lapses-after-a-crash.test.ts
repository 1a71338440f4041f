import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { SyndicationInProgressError } from "../../src/syndication/syndication.ts";
import type { SyndicationEvent } from "../../src/syndication/types.ts";
import { TestClock } from "../helpers/clock.ts";
import { engines } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import {
  collect,
  deferred,
  gated,
  openSyndication,
  type SyndicationFixture,
  TestTarget,
} from "./syndication-fixture.ts";

// The lease's time is the test clock's (passed into its SQL), and its renewals fire as the clock
// moves: a lease outlives its duration, or lapses, without a real wait.
const uid = "https://social.example/@me";
const LEASE_MS = 1_000;
/** The lease is renewed every third of its duration. */
const RENEWAL_MS = Math.floor(LEASE_MS / 3);

for (const engine of engines) {
  describe(`the batch lease (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    const clock = new TestClock();
    before(async () => {
      fixture = await openSyndication(engine, [new TestTarget(uid)], {
        leaseMs: LEASE_MS,
        clock: clock.now,
        every: clock.every,
      });
    });
    after(() => fixture.close());

    it("a lease left by a dead holder (expired) lets the next run start, and its run is marked abandoned", async () => {
      const { rows } = await fixture.database.query<{ id: string }>(
        "INSERT INTO syndication_runs (kind, trigger, holder) VALUES ('batch', 'cli', 'dead-holder') RETURNING id::text AS id",
      );
      const deadRun = rows[0]?.id;
      await fixture.database.query(
        `INSERT INTO syndication_lease (name, holder, run_id, trigger, acquired_at, expires_at)
         VALUES ('batch', 'dead-holder', $1::bigint, 'cli', $2::timestamptz - interval '5 minutes',
                 $2::timestamptz - interval '1 second')`,
        [deadRun, clock.date()],
      );
      assert.equal(
        await fixture.syndication.reads.inProgress(),
        null,
        "an expired lease is not a run in progress",
      );
      const post = await fixture.createPost("2024-01-01T00:00:00Z", [uid]);
      const { summary } = await collect(await fixture.syndication.runs.startBatch("batch"));
      assert.equal(summary.syndicated, 1);
      assert.equal(fixture.targets[0]?.callsFor(post.url).length, 1);
      const runs = await fixture.syndication.reads.recentRuns(10);
      assert.equal(runs.find((run) => run.id === deadRun)?.status, "abandoned");
    });

    it("a live lease held elsewhere refuses the batch until it lapses", async () => {
      await fixture.database.query(
        `INSERT INTO syndication_lease (name, holder, run_id, trigger, acquired_at, expires_at)
         VALUES ('batch', 'elsewhere', NULL, 'webhook', $1, $1::timestamptz + interval '1 hour')`,
        [clock.date()],
      );
      await assert.rejects(fixture.syndication.runs.startBatch("batch"), SyndicationInProgressError);
      clock.advance(60 * 60_000 - 1);
      await assert.rejects(
        fixture.syndication.runs.startBatch("batch"),
        SyndicationInProgressError,
        "a moment before its expiry",
      );
      // The holder died; time passes beyond its expiry.
      clock.advance(2);
      await collect(await fixture.syndication.runs.startBatch("batch"));
    });

    it("is renewed while the run lives, longer than its duration", async () => {
      const [target] = fixture.targets;
      assert.ok(target);
      const gate = deferred();
      target.behaviour = gated(gate.promise, uid);
      await fixture.createPost("2024-01-02T00:00:00Z", [uid]);
      const run = await fixture.syndication.runs.startBatch("batch");
      const finished = collect(run);
      await target.called.promise;
      const first = await fixture.syndication.reads.inProgress();
      // Past two and a half lease durations, a renewal at a time: without renewal it would have lapsed.
      for (let moved = 0; moved < 2.5 * LEASE_MS; moved += RENEWAL_MS) {
        clock.advance(RENEWAL_MS);
        await eventually("the lease is renewed", async () => {
          const live = await fixture.syndication.reads.inProgress();
          return live?.expiresAt.getTime() === clock.now() + LEASE_MS ? live : undefined;
        });
      }
      const later = await fixture.syndication.reads.inProgress();
      assert.equal(later?.runId, run.id);
      assert.ok(first && later && later.expiresAt > first.expiresAt);
      await assert.rejects(fixture.instance().runs.startBatch("batch"), SyndicationInProgressError);
      gate.resolve();
      await finished;
    });

    it("a run that loses its lease stops after its current post", async () => {
      const [target] = fixture.targets;
      assert.ok(target);
      const gate = deferred();
      target.behaviour = gated(gate.promise, uid);
      const first = await fixture.createPost("2024-01-03T00:00:00Z", [uid]);
      const second = await fixture.createPost("2024-01-04T00:00:00Z", [uid]);
      const events: SyndicationEvent[] = [];
      const lost = deferred();
      const stop = fixture.syndication.runs.onEvent((event) => {
        events.push(event);
        if (event.type === "lease-lost") lost.resolve();
      });
      const run = await fixture.syndication.runs.startBatch("batch");
      const finished = collect(run);
      await target.called.promise;
      // Another instance took the lease over (as if this one had stalled past its expiry).
      await fixture.database.query(
        "UPDATE syndication_lease SET holder = 'thief', run_id = NULL, expires_at = $1::timestamptz + interval '1 hour'",
        [clock.date()],
      );
      // Its next renewal finds the lease gone.
      clock.advance(RENEWAL_MS);
      await lost.promise;
      gate.resolve();
      const { results, summary } = await finished;
      stop();
      assert.deepEqual(
        results.map((result) => result.url),
        [first.url],
      );
      assert.equal(summary.posts, 1);
      assert.equal(target.callsFor(second.url).length, 0);
      const [latest] = await fixture.syndication.reads.recentRuns(1);
      assert.equal(latest?.status, "abandoned");
      assert.deepEqual(
        events.map((event) => event.type),
        ["run-started", "lease-lost", "result", "run-finished"],
      );
      // The thief's lease is left alone.
      assert.equal((await fixture.syndication.reads.inProgress())?.holder, "thief");
    });
  });
}
