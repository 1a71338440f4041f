// When to renew a lease: early enough that a slow or briefly unreachable hub still has time, late
// enough not to renew all the time. A tenth of the lease before it ends (a day of a 10-day lease),
// at least a minute, at most half the lease; never sooner than MIN_RENEWAL_DELAY_MS after the
// grant, so that a hub granting one-second leases cannot make us ask it again and again.

/** The least time between a grant (or a failed renewal) and the next renewal request. */
export const MIN_RENEWAL_DELAY_MS = 15_000;

/**
 * The time to renew a lease of `leaseSeconds` granted at `grantedAt` (ms since the epoch).
 *
 * @example
 * renewalTime(0, 864_000); // 777_600_000: day 9 of 10
 * renewalTime(0, 60); // 30_000: half of a one-minute lease
 */
export function renewalTime(grantedAt: number, leaseSeconds: number): number {
  const margin = Math.min(leaseSeconds / 2, Math.max(leaseSeconds / 10, 60));
  return grantedAt + Math.max(MIN_RENEWAL_DELAY_MS, Math.round((leaseSeconds - margin) * 1000));
}

/**
 * When to try again after a renewal failed at `now`: after `retryMs`, but while the lease still
 * runs (half the time left), and never sooner than MIN_RENEWAL_DELAY_MS.
 *
 * @example
 * renewalRetryTime(0, 60_000, 900_000); // 30_000: a lease ending in a minute is retried within it
 */
export function renewalRetryTime(now: number, expiresAt: number | null, retryMs: number): number {
  const left = expiresAt === null ? retryMs : (expiresAt - now) / 2;
  return now + Math.max(MIN_RENEWAL_DELAY_MS, Math.min(retryMs, Math.round(left)));
}
