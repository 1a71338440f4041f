// The live checks of new posts (schedule.whenLive), made by the scheduler outside any run (issue
// 32): they take no lease, start no run, announce nothing and count nothing as skipped, so that a
// thousand posts waiting for their pages never keep "Syndicate all" waiting. A post found live
// becomes due, and the next scheduled run sends it. Two instances sweeping at once may check a
// page twice; a check is a GET, and its record is an upsert, so nothing is lost or doubled.
import type { Database } from "../../contract/database.ts";
import type { DatabaseNow } from "../database-now.ts";
import { type DueRules, dueLiveChecks } from "./due.ts";
import type { LiveAnswer, LiveChecks } from "./live-checks.ts";

/** Posts checked per sweep; the scheduler sweeps again at once while more are due. */
const SWEEP_PAGE = 100;
/** Pages fetched at a time: a sweep must not flood the site or the machine. */
const SIDE_BY_SIDE = 4;

export interface SweepDependencies {
  database: Database;
  liveChecks: LiveChecks;
  checkLive(url: string): Promise<LiveAnswer>;
  rules: DueRules;
  now: DatabaseNow;
}

/** Checks the pages of the new posts whose check is due now; returns how many were checked. */
export async function sweepLiveChecks(deps: SweepDependencies): Promise<number> {
  const due = await dueLiveChecks(deps.database, deps.rules, SWEEP_PAGE, deps.now);
  let next = 0;
  const worker = async () => {
    for (let post = due[next++]; post; post = due[next++]) {
      const answer = await deps.checkLive(post.url);
      await deps.liveChecks.record(post.id, post.url, answer);
    }
  };
  await Promise.all(Array.from({ length: Math.min(SIDE_BY_SIDE, due.length) }, worker));
  return due.length;
}
