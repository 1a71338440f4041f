// Decision 0049: with 1,000 posts waiting for their pages to be live, the scheduler's live-check
// sweep held the single-run lease for 15–99 s, disabled Syndicate all, then announced "1,000 posts
// processed … 1,000 skipped" with a link to posts that "need attention". Now the sweep takes no
// lease, records no run and announces nothing; a user's Syndicate all starts while it is under way;
// a scheduled run never reports a post that only waits; and a scheduled run of this process yields
// the lease to a run someone asked for.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { LiveAnswer } from "../../src/syndication/due/live-checks.ts";
import { Syndication } from "../../src/syndication/syndication.ts";
import type { SyndicationEvent } from "../../src/syndication/types.ts";
import { engines } from "../helpers/databases.ts";
import {
  collect,
  type Deferred,
  deferred,
  openSyndication,
  publication,
  type SyndicationFixture,
  silent,
  TestTarget,
} from "../syndication/syndication-fixture.ts";

const POSTS = 1_000;

for (const engine of engines) {
  describe(`live checks are not runs (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    let target: TestTarget;
    const gate: Deferred<void> = deferred();
    const checking: Deferred<void> = deferred();
    const events: SyndicationEvent[] = [];
    const instances: Syndication[] = [];
    before(async () => {
      target = new TestTarget("https://social.example/@me");
      fixture = await openSyndication(engine, [target]);
      await fixture.database.exec(`
        INSERT INTO posts (url, slug, type, properties, status, published)
        SELECT 'https://example.org/notes/' || n || '/', 'p' || n, 'entry',
               jsonb_build_object('type', 'entry', 'content', 'post ' || n, 'post-status', 'published',
                                  'url', 'https://example.org/notes/' || n || '/', 'published', '2024-01-01T00:00:00Z',
                                  'mp-syndicate-to', jsonb_build_array('${target.info.uid}')),
               'published', timestamptz '2024-01-01' + n * interval '1 minute'
          FROM generate_series(1, ${POSTS}) AS n`);
    });
    after(async () => {
      gate.resolve();
      await Promise.all(instances.map((instance) => instance.runs.shutdown()));
      await fixture.close();
    });

    /** An instance whose live check waits at the gate, then says the page is not there yet. */
    const instance = () => {
      const syndication = new Syndication({
        database: fixture.database,
        posts: fixture.posts,
        syndicators: () => [target],
        publication,
        logger: silent,
        options: { schedule: { whenLive: true, afterPublishMs: 0 } },
        checkLive: async (): Promise<LiveAnswer> => {
          checking.resolve();
          await gate.promise;
          return { live: false, status: 404, error: "404 Not Found" };
        },
      });
      syndication.runs.onEvent((event) => events.push(event));
      instances.push(syndication);
      return syndication;
    };

    it("the sweep holds no lease; Syndicate all starts during it and streams its first result", async () => {
      const syndication = instance();
      assert.equal((await syndication.due.dueMoments()).run, null, "no run is due for posts not seen live");
      const sweep = syndication.due.sweepLiveChecks();
      await checking.promise;
      assert.equal(await syndication.reads.inProgress(), null, "the sweep takes no lease");
      assert.deepEqual(await syndication.reads.recentRuns(), [], "nor is it recorded as a run");

      // Started at once (no 409), and its first result streams while the sweep still waits.
      const run = await syndication.runs.startBatch("manual");
      const first = await run.results[Symbol.asyncIterator]().next();
      assert.equal(first.done, false);
      assert.equal(first.value?.targets[0]?.status, "syndicated");
      await syndication.runs.shutdown();
      gate.resolve();
      assert.equal(await sweep, 100, "a sweep checks a page of posts at a time");
      assert.deepEqual(
        events.filter((event) => event.type === "run-started").map((event) => event.trigger),
        ["manual"],
        "the only run announced is the user's",
      );
    });

    it("a scheduled run reports no post that only waits for its page, and counts none as skipped", async () => {
      const syndication = instance();
      const { results, summary } = await collect(await syndication.runs.startBatch("schedule"));
      const waiting = results.filter((result) => result.targets.some((t) => t.status === "skipped"));
      assert.deepEqual(waiting, [], "no post is reported for waiting");
      assert.equal(summary.skipped, 0);
      assert.ok(summary.posts <= 2, `only posts the user's run touched are reported (${summary.posts})`);
    });

    it("a scheduled run of this process yields the lease to Syndicate all after the post it is on", async () => {
      const opened = deferred();
      target.behaviour = async (call, count) => {
        await opened.promise;
        return `${target.info.uid}/copies/${count}?of=${encodeURIComponent(call.postUrl)}`;
      };
      const syndication = new Syndication({
        database: fixture.database,
        posts: fixture.posts,
        syndicators: () => [target],
        publication,
        logger: silent,
        options: { schedule: { whenLive: false, afterPublishMs: 0 } },
      });
      instances.push(syndication);
      const scheduled = await syndication.runs.startBatch("schedule");
      await target.called.promise;
      const asked = syndication.runs.startBatch("manual");
      opened.resolve();
      const run = await asked;
      assert.equal(run.trigger, "manual");
      const summary = await scheduled.done;
      assert.equal(summary.syndicated, 1, "the scheduled run stopped after the post it was on");
      await syndication.runs.shutdown();
    });
  });
}
