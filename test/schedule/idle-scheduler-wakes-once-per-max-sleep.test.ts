// Decision 0014: with nothing due the scheduler sleeps for its whole bound (a minute by default; 200 ms
// here) between looks: it never busy-polls, and it does wake up so that work written by other
// instances is found. Its sleeps are on the test clock, so ten of them take no time at all.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Scheduler } from "../../src/syndication/due/scheduler.ts";
import { engines } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import {
  openSyndication,
  type SyndicationFixture,
  silent,
  TestTarget,
} from "../syndication/syndication-fixture.ts";

const MAX_SLEEP_MS = 200;

for (const engine of engines) {
  describe(`an idle scheduler wakes once per maxSleepMs (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    let scheduler: Scheduler;
    before(async () => {
      fixture = await openSyndication(engine, [new TestTarget("https://social.example/@me")]);
      scheduler = new Scheduler(fixture.syndication, silent, {
        maxSleepMs: MAX_SLEEP_MS,
        clock: fixture.clock.now,
        after: fixture.clock.after,
      });
      scheduler.start();
    });
    after(async () => {
      await scheduler.stop();
      await fixture.close();
    });

    it("looks once per 200 ms over 2 s with nothing due, sleeping the whole bound, and starts no run", async () => {
      for (let look = 1; look <= 10; look += 1) {
        const sleep = await eventually(`look ${look} is over`, async () => fixture.clock.nextTimerIn());
        assert.equal(sleep, MAX_SLEEP_MS, `after look ${look} it sleeps its whole bound`);
        assert.equal(scheduler.state().wakeUps, look, "one look per sleep: it never busy-polls");
        fixture.clock.advance(MAX_SLEEP_MS);
      }
      await eventually("it looks again after its tenth sleep", async () =>
        scheduler.state().wakeUps === 11 ? true : undefined,
      );
      assert.equal(scheduler.state().nextDueAt, null);
      assert.deepEqual(await fixture.syndication.reads.recentRuns(), []);
    });
  });
}
