// `Retry-After` (RFC 9110 10.2.3), read in one place for every client of ours: feeds, the remote
// Micropub source and the syndicators. Its value is a delay in seconds or an HTTP date; what a
// caller does with the wait (bounds it, adds it to a backoff) is its own policy.

/** Only digits, signs and dots: a number, never a date, though JavaScript's Date.parse reads "-5" as 2001. */
const NUMBER_LIKE = /^[-+\d.\s]+$/;
const DELAY_SECONDS = /^\d+(\.\d+)?$/;

/**
 * Milliseconds to wait, from a `Retry-After` value received at `now` (ms since the epoch): a delay in
 * seconds (a fraction is taken as sent) or a date (an HTTP date, or the ISO time some services
 * send), never below 0; undefined when the value is absent or unreadable.
 *
 * @example
 * retryAfterDelayMs("120", now); // 120_000
 * retryAfterDelayMs("Wed, 21 Oct 2026 07:28:00 GMT", now); // until then, 0 when past
 * retryAfterDelayMs("soon", now); // undefined
 */
export function retryAfterDelayMs(value: string | null | undefined, now: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (DELAY_SECONDS.test(text)) return Number(text) * 1000;
  if (NUMBER_LIKE.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
