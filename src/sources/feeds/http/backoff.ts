// After a failed fetch with no Retry-After: wait twice as long after each failure in a row, starting
// from the feed's own interval, up to 6 hours. A site that is down for a day costs it a few requests.
import { backoffMs as doubledWaitMs } from "../../../net/backoff.ts";

export const MAX_BACKOFF_SECONDS = 6 * 3600;

/**
 * Milliseconds to wait after the `failures`-th failure in a row (1 for the first).
 *
 * @example
 * backoffMs(1, 300); // 600_000: 10 minutes
 */
export function backoffMs(failures: number, pollSeconds: number): number {
  const rule = { baseMs: Math.max(pollSeconds, 60) * 1000, maxMs: MAX_BACKOFF_SECONDS * 1000 };
  return doubledWaitMs(rule, Math.max(failures, 1));
}
