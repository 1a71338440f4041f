// Issue 12: with nothing due the scheduler sleeps for its whole bound (a minute by default; 200 ms
// here) between looks: it never busy-polls, and it does wake up so that work written by other
// instances is found.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  closeServerThenTargets,
  type EndpointServer,
  startWithOneTarget,
  type Target,
} from "../endpoint/endpoint-server.ts";
import { engines } from "../helpers/databases.ts";
import { SHORT_SCHEDULE, schedulerOf } from "./scheduled-server.ts";

// The one real wait left in the scheduler's tests: what is tested is the scheduler's own timer (how
// long it sleeps with nothing due), which no test clock drives yet.
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const engine of engines) {
  describe(`an idle scheduler wakes once per maxSleepMs (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    before(async () => {
      ({ target, app } = await startWithOneTarget(engine, { pluginOptions: SHORT_SCHEDULE }));
    });
    after(() => closeServerThenTargets(app, target));

    it("wakes about every 200 ms over 2 s with nothing due, and starts no run", async () => {
      assert.ok(app);
      const scheduler = schedulerOf(app);
      await pause(300);
      const before = scheduler.state().wakeUps;
      await pause(2_000);
      const wakeUps = scheduler.state().wakeUps - before;
      assert.ok(wakeUps <= 11, `at most one wake-up per 200 ms, not ${wakeUps}`);
      assert.ok(wakeUps >= 5, `it keeps looking (${wakeUps} wake-ups)`);
      assert.equal(scheduler.state().nextDueAt, null);
      assert.deepEqual(await app.syndication().reads.recentRuns(), []);
    });
  });
}
