// Exponential backoff, written once for every retry of ours: a failed send or live check in the core
// (in SQL, so that the database's clock decides when it ends), a feed's failed fetch, the remote
// Micropub source's failed poll, and a change the content store refused. Each caller keeps its own
// rule (its first wait, its longest); the doubling and its bounds are here.

/** A backoff: the first wait, doubled after each further failure, never longer than the longest. */
export interface BackoffRule {
  /** The wait after no doubling yet, in milliseconds. */
  baseMs: number;
  /** The longest wait, in milliseconds. */
  maxMs: number;
}

/** Past 2^40 × any base the longest wait has long been reached; it also keeps power() finite in SQL. */
const MAX_DOUBLINGS = 40;

/**
 * The wait after `doublings` doublings of the base: min(2^doublings × baseMs, maxMs), a negative count
 * taken as none.
 *
 * @example
 * backoffMs({ baseMs: 30_000, maxMs: 3_600_000 }, 2); // 120_000
 */
export function backoffMs(rule: BackoffRule, doublings: number): number {
  return Math.min(rule.maxMs, rule.baseMs * 2 ** Math.min(Math.max(doublings, 0), MAX_DOUBLINGS));
}

/**
 * backoffMs in SQL, over SQL expressions (a column, a parameter): a float8 of milliseconds.
 *
 * @example
 * `${sqlNow(3)} + ${sqlBackoffMs("attempts", "$1::float8", "$2::float8")} * interval '1 millisecond'`
 */
export function sqlBackoffMs(doublings: string, baseMs: string, maxMs: string): string {
  return `LEAST(power(2, LEAST(GREATEST(${doublings}, 0), ${MAX_DOUBLINGS})) * ${baseMs}, ${maxMs})`;
}
