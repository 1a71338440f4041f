// A batch's next post is claimed inside the previous post's write-back (decision 0075), under four
// guards: what the claim took is read back by its tokens when the write-back throws after its commit;
// a post whose write-back waits on the network after its commit commits alone; the next post is
// prepared only once the current post's targets have answered; and a crash before that commit leaves
// the next post unclaimed, for the next run to send once.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import type { LiveAnswer } from "../../src/syndication/due/live-checks.ts";
import { Syndication } from "../../src/syndication/syndication.ts";
import { engines } from "../helpers/databases.ts";
import {
  collect,
  deferred,
  gated,
  ledgerRow,
  openSyndication,
  publication,
  type SyndicationFixture,
  silent,
  TestTarget,
} from "./syndication-fixture.ts";

const copies = "https://copies.example/@me";
const slow = "https://slow.example/@me";

/** The post's ledger rows (uid and state), and how many attempts each target had. */
async function rowsOf(database: Database, postId: string) {
  const { rows } = await database.query<{ target_uid: string; state: string; attempts: number }>(
    `SELECT t.target_uid, t.state,
            (SELECT count(*)::int FROM syndication_attempts a
              WHERE a.post_id = t.post_id AND a.target_uid = t.target_uid) AS attempts
       FROM syndication_targets t WHERE t.post_id = $1::bigint ORDER BY t.target_uid`,
    [postId],
  );
  return rows.map((row) => [row.target_uid, row.state, row.attempts]);
}

async function sendingRows(database: Database): Promise<number> {
  const { rows } = await database.query<{ sending: number }>(
    "SELECT count(*)::int AS sending FROM syndication_targets WHERE state = 'sending'",
  );
  return rows[0]?.sending ?? -1;
}

for (const engine of engines) {
  describe(`a batch's next post rides the write-back under its guards (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    let copiesTarget: TestTarget;
    let slowTarget: TestTarget;
    before(async () => {
      fixture = await openSyndication(engine, [new TestTarget(copies), new TestTarget(slow)]);
      const [first, second] = fixture.targets;
      assert.ok(first && second);
      copiesTarget = first;
      slowTarget = second;
    });
    after(() => fixture.close());

    /** Runs `body` with the fixture's source changed as `change` says, and puts it back after. */
    const withSource = async (
      change: Partial<SyndicationFixture["posts"]>,
      body: () => Promise<void>,
    ): Promise<void> => {
      const saved = {
        updateAlongside: fixture.posts.updateAlongside,
        returnsOnCommit: fixture.posts.returnsOnCommit,
      };
      Object.assign(fixture.posts, change);
      try {
        await body();
      } finally {
        Object.assign(fixture.posts, saved);
        slowTarget.behaviour = (call, count) =>
          `${slow}/copies/${count}?of=${encodeURIComponent(call.postUrl)}`;
      }
    };

    it("a write-back that throws after its commit: the next post's claim is read back and adopted, and it is sent once", async () => {
      const refused = await fixture.createPost("2024-04-01T00:00:00Z", [copies]);
      const next = await fixture.createPost("2024-04-01T00:01:00Z", [copies, slow]);
      const real = fixture.posts.updateAlongside;
      await withSource(
        {
          // The store refuses once the statement is committed (as a content store may).
          async updateAlongside(url, change, alongside) {
            const written = await real(url, change, alongside);
            if (url === refused.url) throw new Error("The store refused the change");
            return written;
          },
        },
        async () => {
          const { results } = await collect(await fixture.syndication.runs.startBatch("batch"));
          const sent = results.find((result) => result.url === next.url);
          assert.deepEqual(
            sent?.targets.map((target) => [target.uid, target.status]),
            [
              [copies, "syndicated"],
              [slow, "syndicated"],
            ],
            JSON.stringify(results),
          );
        },
      );
      // Claimed once (inside the refused write-back), sent once, no second claim.
      assert.deepEqual(await rowsOf(fixture.database, next.id), [
        [copies, "syndicated", 1],
        [slow, "syndicated", 1],
      ]);
      assert.equal(copiesTarget.callsFor(next.url).length, 1);
      assert.equal(slowTarget.callsFor(next.url).length, 1);
      assert.equal((await ledgerRow(fixture.database, refused.id, copies))?.state, "syndicated");
      assert.equal(await sendingRows(fixture.database), 0, "no row is left claimed and unsent");
    });

    it("a write-back undone whole: the next post's targets are claimed afresh and sent once", async () => {
      const failing = await fixture.createPost("2024-04-02T00:00:00Z", [copies]);
      const next = await fixture.createPost("2024-04-02T00:01:00Z", [copies, slow]);
      const real = fixture.posts.updateAlongside;
      await withSource(
        {
          async updateAlongside(url, change, alongside) {
            // Refused before its statement runs: nothing of it is committed.
            if (url === failing.url) throw new Error("The database went away for a moment");
            return real(url, change, alongside);
          },
        },
        async () => {
          await collect(await fixture.syndication.runs.startBatch("batch"));
        },
      );
      assert.deepEqual(await rowsOf(fixture.database, next.id), [
        [copies, "syndicated", 1],
        [slow, "syndicated", 1],
      ]);
      assert.equal((await ledgerRow(fixture.database, failing.id, copies))?.state, "syndicated");
      assert.equal(await sendingRows(fixture.database), 0);
    });

    it("a write-back that waits on the network after its commit: the next post is claimed only after it returns", async () => {
      const waiting = await fixture.createPost("2024-04-03T00:00:00Z", [copies]);
      const next = await fixture.createPost("2024-04-03T00:01:00Z", [copies]);
      const real = fixture.posts.updateAlongside;
      const origin = deferred();
      const told = deferred();
      await withSource(
        {
          // As a post from elsewhere: its origin is told after the commit, over the network.
          returnsOnCommit: (post) => post.url !== waiting.url,
          async updateAlongside(url, change, alongside) {
            const written = await real(url, change, alongside);
            if (url === waiting.url) {
              told.resolve();
              await origin.promise;
            }
            return written;
          },
        },
        async () => {
          const run = collect(await fixture.syndication.runs.startBatch("batch"));
          await told.promise;
          assert.deepEqual(
            await rowsOf(fixture.database, next.id),
            [],
            "nothing of the next post is claimed while the origin is awaited",
          );
          origin.resolve();
          await run;
        },
      );
      assert.deepEqual(await rowsOf(fixture.database, next.id), [[copies, "syndicated", 1]]);
    });

    it("a crash before the combined commit: the post's rows stay `sending`, the next post is unclaimed and sent once by the next run", async () => {
      const crashing = await fixture.createPost("2024-04-04T00:00:00Z", [copies]);
      const next = await fixture.createPost("2024-04-04T00:01:00Z", [copies, slow]);
      const real = fixture.posts.updateAlongside;
      const reached = deferred();
      const resume = deferred();
      let resumed: Promise<unknown> | undefined;
      await withSource(
        {
          // The process "dies" here: its write-back never reaches the database until the test says so.
          async updateAlongside(url, change, alongside) {
            if (url === crashing.url) {
              reached.resolve();
              await resume.promise;
            }
            return real(url, change, alongside);
          },
        },
        async () => {
          const dead = await fixture.syndication.runs.startBatch("batch");
          resumed = collect(dead);
          await reached.promise;
          assert.deepEqual(await rowsOf(fixture.database, crashing.id), [[copies, "sending", 1]]);
          assert.deepEqual(await rowsOf(fixture.database, next.id), [], "the next post is not claimed");
          // Another process starts on the same database and recovers what the dead one left.
          const restarted = fixture.instance();
          fixture.clock.advance(1_000);
          assert.equal(await restarted.runs.recoverAfterCrash(), 1);
          await collect(await restarted.runs.startBatch("batch"));
          assert.equal((await ledgerRow(fixture.database, crashing.id, copies))?.state, "unknown");
          assert.deepEqual(await rowsOf(fixture.database, next.id), [
            [copies, "syndicated", 1],
            [slow, "syndicated", 1],
          ]);
          // The dead process's statement arrives after all: the next post is not claimed twice.
          resume.resolve();
          await resumed;
        },
      );
      assert.equal(copiesTarget.callsFor(next.url).length, 1);
      assert.equal(slowTarget.callsFor(next.url).length, 1);
      assert.equal(
        copiesTarget.callsFor(crashing.url).length,
        1,
        "an unknown outcome is never sent again by itself",
      );
      assert.equal(await sendingRows(fixture.database), 0);
    });

    it("a stop asked for while a post is sent: the next post is not claimed", async () => {
      const gate = deferred();
      slowTarget.behaviour = gated(gate.promise, slow);
      const current = await fixture.createPost("2024-04-05T00:00:00Z", [slow]);
      const next = await fixture.createPost("2024-04-05T00:01:00Z", [copies]);
      const instance = fixture.instance();
      const run = await instance.runs.startBatch("batch");
      const results = collect(run);
      await slowTarget.called.promise;
      const stopping = instance.runs.shutdown();
      gate.resolve();
      await stopping;
      const { results: reported } = await results;
      assert.deepEqual(
        reported.map((result) => result.url),
        [current.url],
      );
      assert.deepEqual(await rowsOf(fixture.database, next.id), []);
      slowTarget.behaviour = (call, count) =>
        `${slow}/copies/${count}?of=${encodeURIComponent(call.postUrl)}`;
      await collect(await fixture.syndication.runs.startBatch("batch"));
      assert.deepEqual(await rowsOf(fixture.database, next.id), [[copies, "syndicated", 1]]);
    });

    it("a scheduled run's next post whose gate needs a live check: the current post commits alone first", async () => {
      const first = await fixture.createPost("2024-04-06T00:00:00Z", [copies]);
      const second = await fixture.createPost("2024-04-06T00:01:00Z", [copies]);
      /** The state of the first post's row when each live check was made, by URL. */
      const seen = new Map<string, unknown>();
      const scheduled = new Syndication({
        database: fixture.database,
        posts: fixture.posts,
        syndicators: () => fixture.targets,
        publication,
        logger: silent,
        options: {
          targetTimeoutMs: 30_000,
          clock: fixture.clock.now,
          schedule: { whenLive: true, afterPublishMs: 0 },
        },
        // A live check is an HTTP request: the first post's row is read when the second's is made.
        checkLive: async (url): Promise<LiveAnswer> => {
          seen.set(url, (await ledgerRow(fixture.database, first.id, copies))?.state ?? null);
          return { live: true, status: 200 };
        },
      });
      try {
        await collect(await scheduled.runs.startBatch("schedule"));
      } finally {
        await scheduled.runs.shutdown();
      }
      assert.equal(seen.get(first.url), null);
      assert.equal(seen.get(second.url), "syndicated", "no row waits `sending` on another post's request");
      assert.deepEqual(await rowsOf(fixture.database, second.id), [[copies, "syndicated", 1]]);
    });
  });
}
