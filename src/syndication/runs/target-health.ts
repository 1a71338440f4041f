// What is known of each target as a whole, not of one post: when it was last checked or last took
// a post, its last error, since when it refuses our credentials (401, 403) and until when it
// rate-limits us (429). Checks (verify) and sends both feed it; a success of either clears it. It is
// kept in the database, so every instance and the page after a restart see the same.
import type { Database } from "../../contract/database.ts";
import type { AlongsideStatement } from "../../contract/post-source.ts";
import { DATABASE_DECIDES, type DatabaseNow, sqlNow } from "../database-now.ts";
import { clip } from "../ledger/rows.ts";

export interface TargetHealth {
  uid: string;
  checkedAt: Date | null;
  okAt: Date | null;
  error: string | null;
  errorStatus: number | null;
  errorAt: Date | null;
  refusedSince: Date | null;
  rateLimitedUntil: Date | null;
}

/** refused: 401/403 since the last success; failing: another error (the service down, a timeout). */
export type TargetHealthState = "ok" | "refused" | "rate_limited" | "failing" | "unchecked";

export interface TargetFailure {
  error: string;
  status?: number;
  permanent?: boolean;
  retryAt?: Date;
}

interface HealthRow {
  target_uid: string;
  checked_at: Date | null;
  ok_at: Date | null;
  error: string | null;
  error_status: number | null;
  error_at: Date | null;
  refused_since: Date | null;
  rate_limited_until: Date | null;
}

const REFUSALS = new Set([401, 403]);

export function healthState(health: TargetHealth | undefined, now = Date.now()): TargetHealthState {
  if (!health) return "unchecked";
  if (health.refusedSince) return "refused";
  if (health.rateLimitedUntil && health.rateLimitedUntil.getTime() > now) return "rate_limited";
  if (health.error) return "failing";
  return health.okAt ? "ok" : "unchecked";
}

/**
 * Whether a failed send says something about the target rather than about the post: refused
 * credentials, a rate limit, the service failing or out of reach. A 422 (the post too long) or a
 * reply to a status that is gone says nothing about the target, and is left to the post's row.
 */
export function isTargetWide(failure: TargetFailure): boolean {
  const { status } = failure;
  if (status === undefined) return failure.permanent !== true;
  return REFUSALS.has(status) || status === 429 || status >= 500;
}

function toHealth(row: HealthRow): TargetHealth {
  return {
    uid: row.target_uid,
    checkedAt: row.checked_at,
    okAt: row.ok_at,
    error: row.error,
    errorStatus: row.error_status,
    errorAt: row.error_at,
    refusedSince: row.refused_since,
    rateLimitedUntil: row.rate_limited_until,
  };
}

/** What a success writes: the target is well, whatever it said before. */
const well = (now: string) => `ok_at = ${now}, error = NULL,
  error_status = NULL, error_at = NULL, refused_since = NULL, rate_limited_until = NULL, updated_at = ${now}`;

export class TargetHealthStore {
  /**
   * Targets this process last knew to be well: a successful send of theirs writes nothing, unless
   * another instance sharing a PostgreSQL database has since recorded a problem (see recordSuccess).
   * Refreshed by every read and dropped by every failure.
   */
  readonly #known = new Set<string>();

  constructor(
    private readonly database: Database,
    private readonly now: DatabaseNow = DATABASE_DECIDES,
  ) {}

  /** Every target's row, keyed by uid (targets never checked nor sent to are absent). */
  async all(): Promise<Map<string, TargetHealth>> {
    const result = await this.database.query<HealthRow>(
      `SELECT target_uid, checked_at, ok_at, error, error_status, error_at, refused_since, rate_limited_until
         FROM syndication_target_health`,
    );
    const health = new Map(result.rows.map((row) => [row.target_uid, toHealth(row)]));
    for (const [uid, entry] of health) {
      if (healthState(entry) === "ok") this.#known.add(uid);
      else this.#known.delete(uid);
    }
    return health;
  }

  /** A check or a send succeeded: the target is well, whatever it said before. */
  async recordSuccess(uid: string, { checked }: { checked: boolean }): Promise<void> {
    if (!checked && this.#known.has(uid)) {
      // One process owns an embedded database, so there this process knows all there is to know.
      if (this.database.engine === "pglite") return;
      // On PostgreSQL another instance may have recorded a refusal, a rate limit or an error since
      // this one last looked: clear it. The row is found by its key and, while the target is well,
      // nothing is written, so a send costs one read of one row and takes no lock.
      await this.database.query(
        `UPDATE syndication_target_health SET ${well(sqlNow(2))}
          WHERE target_uid = $1
            AND (error IS NOT NULL OR refused_since IS NOT NULL OR rate_limited_until IS NOT NULL)`,
        [uid, this.now()],
      );
      return;
    }
    await this.database.query(
      `INSERT INTO syndication_target_health AS h (target_uid, checked_at, ok_at, updated_at)
       VALUES ($1, CASE WHEN $2::boolean THEN ${sqlNow(3)} END, ${sqlNow(3)}, ${sqlNow(3)})
       ON CONFLICT (target_uid) DO UPDATE
         SET checked_at = COALESCE(EXCLUDED.checked_at, h.checked_at), ${well(sqlNow(3))}`,
      [uid, checked, this.now()],
    );
    this.#known.add(uid);
  }

  /** Whether this process last knew the target to be well (a success then writes nothing of its own). */
  knownWell(uid: string): boolean {
    return this.#known.has(uid);
  }

  /**
   * recordSuccess, unchecked, of targets this process knows to be well, as a statement for another
   * to run (the post's write-back, decision 0068): nothing on an embedded database, on PostgreSQL the
   * clearing of what another instance recorded since.
   */
  wellAgain(uids: readonly string[]): AlongsideStatement | undefined {
    if (uids.length === 0 || this.database.engine === "pglite") return undefined;
    return {
      params: [[...new Set(uids)], this.now()],
      with: (first) => `well_again AS (
         UPDATE syndication_target_health SET ${well(sqlNow(first + 1))}
          WHERE target_uid = ANY($${first}::text[])
            AND (error IS NOT NULL OR refused_since IS NOT NULL OR rate_limited_until IS NOT NULL)
       )`,
      returning: "NULL::json",
    };
  }

  /**
   * A check, or a send that failed for the target as a whole (see isTargetWide). A 401 or 403 starts
   * the refusal (kept from its first one until a success); a 429 says until when, if the service did.
   */
  async recordFailure(uid: string, failure: TargetFailure, { checked }: { checked: boolean }): Promise<void> {
    this.#known.delete(uid);
    const status = failure.status ?? null;
    await this.database.query(
      `INSERT INTO syndication_target_health AS h
         (target_uid, checked_at, error, error_status, error_at, refused_since, rate_limited_until, updated_at)
       VALUES ($1, CASE WHEN $2::boolean THEN ${sqlNow(6)} END, $3, $4::int, ${sqlNow(6)},
               CASE WHEN $4::int IN (401, 403) THEN ${sqlNow(6)} END, CASE WHEN $4::int = 429 THEN $5::timestamptz END,
               ${sqlNow(6)})
       ON CONFLICT (target_uid) DO UPDATE
         SET checked_at = COALESCE(EXCLUDED.checked_at, h.checked_at), error = EXCLUDED.error,
             error_status = EXCLUDED.error_status, error_at = ${sqlNow(6)},
             refused_since = CASE WHEN EXCLUDED.refused_since IS NOT NULL
                                  THEN COALESCE(h.refused_since, EXCLUDED.refused_since) ELSE h.refused_since END,
             rate_limited_until = CASE WHEN $4::int = 429 THEN EXCLUDED.rate_limited_until
                                       ELSE h.rate_limited_until END,
             updated_at = ${sqlNow(6)}`,
      [uid, checked, clip(failure.error), status, failure.retryAt?.toISOString() ?? null, this.now()],
    );
  }
}
