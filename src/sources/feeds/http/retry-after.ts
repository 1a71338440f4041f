// A feed's site that asks for a pause (`Retry-After`, read by src/net/retry-after.ts) gets it, within
// [1 min, 1 day]: a "0" is not an invitation to hammer, and a date next year does not silence the
// feed for good.
import { retryAfterDelayMs } from "../../../net/retry-after.ts";

export const MIN_RETRY_AFTER_SECONDS = 60;
export const MAX_RETRY_AFTER_SECONDS = 86_400;

/**
 * Milliseconds to wait, from a Retry-After value received at `now`; undefined when absent or unreadable.
 *
 * @example
 * retryAfterMs("120", now); // 120_000
 * retryAfterMs("Wed, 21 Oct 2026 07:28:00 GMT", now); // until then
 */
export function retryAfterMs(value: string | null, now: number): number | undefined {
  const asked = retryAfterDelayMs(value, now);
  if (asked === undefined) return undefined;
  return Math.min(MAX_RETRY_AFTER_SECONDS * 1000, Math.max(MIN_RETRY_AFTER_SECONDS * 1000, asked));
}
