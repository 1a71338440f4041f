// "Now" in SQL, one rule for the core, the host and the sources: the database's clock decides when a
// backoff ends, a claim goes stale, a page gives up, a lease lapses or a rate-limit window passes, so
// that instances whose own clocks are a little apart agree. A test's clock, when one is given, is
// passed into the statement as a parameter instead: those moments then come when the test moves its
// clock, with no real wait (docs/testing.md, "Time").

/**
 * SQL for "now" that reads parameter `$n`: the moment it holds, or the database's `now()` when it
 * holds null.
 *
 * @example
 * const now = databaseNow(clock);
 * await database.query(`UPDATE t SET seen_at = ${sqlNow(2)} WHERE id = $1`, [id, now()]);
 */
export const sqlNow = (n: number): string => `COALESCE($${n}::timestamptz, now())`;

/** The value of sqlNow's parameter at this moment: the test clock's time, or null (the database's). */
export type DatabaseNow = () => string | null;

/** The database decides: sqlNow's parameter is always null. */
export const DATABASE_DECIDES: DatabaseNow = () => null;

/** sqlNow's parameter for the core's clock: a test's clock when given, else the database's own. */
export function databaseNow(clock?: () => number): DatabaseNow {
  return clock ? () => new Date(clock()).toISOString() : DATABASE_DECIDES;
}
