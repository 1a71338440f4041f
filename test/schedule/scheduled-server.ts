// A server whose scheduler runs with short bounds, so that what takes minutes at the defaults
// happens within a test: sleeps of at most maxSleepMs, failed sends retried after baseMs, 2 × baseMs …
import { EndpointSyndicate } from "../../src/plugin/endpoint-syndicate.ts";
import type { Scheduler } from "../../src/syndication/scheduler.ts";
import type { EndpointServer } from "../endpoint/endpoint-server.ts";

export const SHORT_SCHEDULE = {
  schedule: { enabled: true, whenLive: false, maxSleepMs: 200 },
  retry: { baseMs: 100, maxMs: 400 },
};

export function schedulerOf(app: EndpointServer): Scheduler {
  const plugin = app.server.host.plugins.find((p): p is EndpointSyndicate => p instanceof EndpointSyndicate);
  if (!plugin?.scheduler) throw new Error("The endpoint plug-in runs no scheduler");
  return plugin.scheduler;
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
