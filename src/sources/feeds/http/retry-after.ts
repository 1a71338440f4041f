// `Retry-After` (RFC 9110 10.2.3): either seconds or an HTTP date. A site that asks for a pause gets
// it, within [1 min, 1 day]: a "0" is not an invitation to hammer, and a date next year does not
// silence the feed for good.

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
  if (value === null) return undefined;
  const text = value.trim();
  let seconds: number;
  if (/^\d+$/.test(text)) seconds = Number(text);
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    seconds = (at - now) / 1000;
  }
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(MIN_RETRY_AFTER_SECONDS, seconds)) * 1000;
}
