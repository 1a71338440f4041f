// Rate-limit counts kept in the database (application.rateLimit.store: "database"), so that every
// instance sharing it counts against the same budget: behind a load balancer a client cannot get
// N times the limit by being spread over N instances. One row per (limiter, client); a hit is one
// atomic upsert that also starts a new window when the old one has passed, so concurrent hits on
// several instances are all counted and none is lost. Works on PGlite and PostgreSQL alike.

import type { ClientRateLimitInfo, Options, Store } from "express-rate-limit";
import type { Database, Migration } from "../contract/database.ts";
import { type DatabaseNow, databaseNow, sqlNow } from "../contract/database-now.ts";

export const rateLimitMigrations: Migration[] = [
  {
    id: "host/002-rate-limit-hits",
    sql: `
CREATE TABLE rate_limit_hits (
  key text PRIMARY KEY,
  hits integer NOT NULL,
  reset_at timestamptz NOT NULL
);
-- Expired windows are swept now and then.
CREATE INDEX rate_limit_hits_reset ON rate_limit_hits (reset_at);
`,
  },
];

/** Expired rows are deleted after this many hits counted by one store (they are harmless meanwhile). */
const SWEEP_EVERY = 1_000;

interface HitsRow {
  hits: number;
  reset_at: Date;
}

export interface DatabaseRateLimitStoreOptions {
  /** Keeps one limiter's counts apart from another's for the same client, e.g. "sign-in:". */
  prefix: string;
  /** Reports a failed sweep of expired rows (never a reason to fail a request). */
  onSweepError?: (error: unknown) => void;
  /**
   * The time to count at, in milliseconds; the database's clock (now()) unless given: tests pass
   * theirs, so that a window passes without waiting for it.
   */
  now?: () => number;
}

export class DatabaseRateLimitStore implements Store {
  /** Counts live in the shared database: a key counted here is seen by every instance. */
  readonly localKeys = false;
  readonly prefix: string;
  private windowMs = 60_000;
  private hitsSinceSweep = 0;
  private readonly onSweepError: (error: unknown) => void;
  /** The moment to count at, as a query parameter: null lets the database's clock decide. */
  private readonly at: DatabaseNow;

  constructor(
    private readonly database: Database,
    options: DatabaseRateLimitStoreOptions,
  ) {
    if (!options.prefix) throw new Error("A database rate-limit store needs a prefix of its own");
    this.prefix = options.prefix;
    this.onSweepError = options.onSweepError ?? (() => {});
    this.at = databaseNow(options.now);
  }

  /** express-rate-limit passes its options once: the window length is all the store needs. */
  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const result = await this.database.query<HitsRow>(
      `SELECT hits, reset_at FROM rate_limit_hits WHERE key = $1 AND reset_at > ${sqlNow(2)}`,
      [this.prefix + key, this.at()],
    );
    const row = result.rows[0];
    return row ? { totalHits: row.hits, resetTime: row.reset_at } : undefined;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    // The database's clock decides when a window ends, so instances with skewed clocks agree.
    const result = await this.database.query<HitsRow>(
      `INSERT INTO rate_limit_hits AS r (key, hits, reset_at)
       VALUES ($1, 1, ${sqlNow(3)} + $2::int * interval '1 millisecond')
       ON CONFLICT (key) DO UPDATE
         SET hits = CASE WHEN r.reset_at <= ${sqlNow(3)} THEN 1 ELSE r.hits + 1 END,
             reset_at = CASE WHEN r.reset_at <= ${sqlNow(3)} THEN EXCLUDED.reset_at ELSE r.reset_at END
       RETURNING hits, reset_at`,
      [this.prefix + key, this.windowMs, this.at()],
    );
    this.sweepNowAndThen();
    const row = result.rows[0];
    if (!row) throw new Error("Counting a rate-limit hit returned no row");
    return { totalHits: row.hits, resetTime: row.reset_at };
  }

  async decrement(key: string): Promise<void> {
    await this.database.query(
      `UPDATE rate_limit_hits SET hits = hits - 1 WHERE key = $1 AND hits > 0 AND reset_at > ${sqlNow(2)}`,
      [this.prefix + key, this.at()],
    );
  }

  async resetKey(key: string): Promise<void> {
    await this.database.query("DELETE FROM rate_limit_hits WHERE key = $1", [this.prefix + key]);
  }

  /** Every client's count of this limiter (not of the others sharing the table). */
  async resetAll(): Promise<void> {
    await this.database.query("DELETE FROM rate_limit_hits WHERE left(key, length($1)) = $1", [this.prefix]);
  }

  private sweepNowAndThen(): void {
    this.hitsSinceSweep += 1;
    if (this.hitsSinceSweep < SWEEP_EVERY) return;
    this.hitsSinceSweep = 0;
    this.database
      .query(`DELETE FROM rate_limit_hits WHERE reset_at <= ${sqlNow(1)}`, [this.at()])
      .catch(this.onSweepError);
  }
}

/**
 * The store a limiter counts in: undefined for "memory" (the limiter's own, per instance), the
 * shared database table for "database".
 */
export function rateLimitStore(
  kind: "memory" | "database",
  database: Database | null,
  prefix: string,
  onSweepError?: (error: unknown) => void,
): Store | undefined {
  if (kind === "memory") return undefined;
  if (!database) {
    throw new Error(
      'application.rateLimit.store is "database" but the server runs without a database; set application.database (or DATABASE_URL), or use "memory"',
    );
  }
  return new DatabaseRateLimitStore(database, { prefix, ...(onSweepError ? { onSweepError } : {}) });
}
