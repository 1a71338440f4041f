// A server whose core and scheduler tell time by a clock the test moves (ServerClock), so that what
// takes minutes or a day at the defaults (a backoff, the live checks of a page, giving up on it)
// happens at once, and exactly when it should: a test can show it does not happen a millisecond early.
import { EndpointSyndicate } from "../../src/plugin/endpoint-syndicate.ts";
import type { After, Scheduler } from "../../src/syndication/due/scheduler.ts";
import type { EndpointServer } from "../endpoint/endpoint-server.ts";
import { TestClock } from "../helpers/clock.ts";
import { until } from "../helpers/eventually.ts";

/**
 * The clock of a server's core and scheduler (startEndpointServer's `clock`). It starts an hour
 * ahead of the real time: the host dates posts by the real clock, and a post must not look
 * published in the core's future. It knows when the scheduler sleeps, the only user of `after`.
 */
export class ServerClock {
  private readonly clock = new TestClock(Date.now() + 3_600_000);
  /** True while the scheduler sleeps (until its timer fires or a nudge wakes it). */
  private asleep = false;
  readonly now = this.clock.now;
  readonly every = this.clock.every;
  readonly after: After = (ms, done) => {
    this.asleep = true;
    const cancel = this.clock.after(ms, () => {
      this.asleep = false;
      done();
    });
    return () => {
      this.asleep = false;
      cancel();
    };
  };

  /**
   * Once the scheduler sleeps (its look, run or nudge over), moves the clock on: the timers due on
   * the way fire (see TestClock.advance). Moved while the scheduler was still looking, the clock
   * would pass a sleep not yet begun.
   */
  async advance(ms: number): Promise<void> {
    await this.sleeping();
    this.clock.advance(ms);
  }

  /** Waits until the scheduler has gone to sleep again (after a look, a run, a nudge). */
  async sleeping(what = "the scheduler sleeps"): Promise<void> {
    await until(what, () => this.asleep);
  }
}

export function schedulerOf(app: EndpointServer): Scheduler {
  const plugin = app.server.host.plugins.find((p): p is EndpointSyndicate => p instanceof EndpointSyndicate);
  if (!plugin?.scheduler) throw new Error("The endpoint plug-in runs no scheduler");
  return plugin.scheduler;
}

/**
 * Has the scheduler look `count` more times at once, each nudged as a new post nudges it, and
 * returns when the last of those looks is over (its run included): what the scheduler would do by
 * itself at its next wake-ups, it has done, with no wait for its timer. For "nothing more happens".
 */
export async function looks(scheduler: Scheduler, count = 3): Promise<void> {
  const from = scheduler.state().wakeUps;
  // A look is over once the next one has begun.
  for (let look = 1; look <= count + 1; look += 1) {
    scheduler.nudge();
    await until(`the scheduler's look ${look} of ${count}`, () => scheduler.state().wakeUps >= from + look);
  }
}
