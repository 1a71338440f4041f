// A server whose scheduler runs with short bounds, so that what takes minutes at the defaults
// happens within a test: sleeps of at most maxSleepMs, failed sends retried after baseMs, 2 × baseMs …
import { EndpointSyndicate } from "../../src/plugin/endpoint-syndicate.ts";
import type { Scheduler } from "../../src/syndication/scheduler.ts";
import type { EndpointServer } from "../endpoint/endpoint-server.ts";
import { until } from "../helpers/eventually.ts";

export const SHORT_SCHEDULE = {
  schedule: { enabled: true, whenLive: false, maxSleepMs: 200 },
  retry: { baseMs: 100, maxMs: 400 },
};

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
