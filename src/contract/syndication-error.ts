// What a syndicator throws when a target refuses or cannot be reached. The core reads `permanent`
// to decide whether retrying can help, and shows `message` (which starts with the target's name and
// carries the target's own words) in the ledger and on the page.

export interface SyndicationErrorOptions {
  /** The HTTP status the target answered, when it answered. */
  status?: number;
  /** True when retrying the same request cannot succeed (bad token, refused content, gone). */
  permanent: boolean;
  /** Seconds the target asked us to wait (Retry-After), when it said. */
  retryAfterSeconds?: number;
  /** The target's machine-readable error name, when it has one, e.g. "ExpiredToken". */
  code?: string;
  /**
   * The request may have been carried out although no answer came (a timeout or a connection lost
   * after it was sent): the core never resends it to a target without idempotency.
   */
  uncertain?: boolean;
  cause?: unknown;
}

export class SyndicationError extends Error {
  readonly status?: number;
  readonly permanent: boolean;
  readonly retryAfterSeconds?: number;
  readonly code?: string;
  readonly uncertain: boolean;

  constructor(message: string, options: SyndicationErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "SyndicationError";
    this.permanent = options.permanent;
    this.uncertain = options.uncertain ?? false;
    if (options.status !== undefined) this.status = options.status;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
    if (options.code !== undefined) this.code = options.code;
  }
}

/**
 * Whether an HTTP status is a refusal that the same request will meet again: the credentials, the
 * content or the address is wrong. Timeouts (408), conflicts (409), "too early" (425), rate limits
 * (429) and server errors (5xx) pass with time, so they are not permanent.
 */
export function isPermanentStatus(status: number): boolean {
  if (status >= 500) return false;
  return status >= 400 && ![408, 409, 425, 429].includes(status);
}
