// LinkedIn's rate limits are per day and "reset at midnight UTC every day"
// (learn.microsoft.com/linkedin/shared/api-guide/concepts/rate-limits): a 429 waits until then.

const dayMs = 24 * 60 * 60 * 1000;

/** Seconds from `now` to the next 00:00 UTC (a full day at 00:00 itself). */
export function secondsUntilNextUtcMidnight(now: number): number {
  const next = (Math.floor(now / dayMs) + 1) * dayMs;
  return Math.ceil((next - now) / 1000);
}
