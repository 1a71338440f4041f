// When to renew a lease: early enough that a slow or briefly unreachable hub still has time, late
// enough not to renew all the time. A tenth of the lease before it ends (a day of a 10-day lease),
// at least a minute, at most half the lease.

/**
 * The time to renew a lease of `leaseSeconds` granted at `grantedAt` (ms since the epoch).
 *
 * @example
 * renewalTime(0, 864_000); // 777_600_000: day 9 of 10
 */
export function renewalTime(grantedAt: number, leaseSeconds: number): number {
  const margin = Math.min(leaseSeconds / 2, Math.max(leaseSeconds / 10, 60));
  return grantedAt + Math.round((leaseSeconds - margin) * 1000);
}
