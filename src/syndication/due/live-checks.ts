// Whether a new post's page answers yet (schedule.whenLive). On a static site the post exists in
// the database long before the deploy puts its page online; a copy sent before then links to a
// 404. The scheduler sends a new post only once its URL answered 2xx; until then the check is
// repeated with the same backoff as a failed send, and after a day it waits for the user.

import type { Database } from "../../contract/database.ts";
import { sqlBackoffMs } from "../../net/backoff.ts";
import { type OutgoingFetchPolicy, safeFetch } from "../../net/safe-fetch.ts";
import { DATABASE_DECIDES, type DatabaseNow, sqlNow } from "../database-now.ts";
import type { Backoff } from "../ledger/claims.ts";

/** A page that is online answers in far less; the whole check (redirects included) is bounded. */
const CHECK_TIMEOUT_MS = 10_000;
const CHECK_MAX_REDIRECTS = 3;
/** Only the status matters: at most this much of the page is read. */
const CHECK_MAX_BYTES = 64 * 1024;
/** After this long without a 2xx the post waits for the user, like a refused send. */
export const GIVE_UP_AFTER_MS = 86_400_000;

export interface LiveCheck {
  postId: string;
  url: string;
  liveAt: Date | null;
  firstCheckedAt: Date;
  checkedAt: Date;
  nextCheckAt: Date | null;
  checks: number;
  lastStatus: number | null;
  lastError: string | null;
  /** Not live a day after the first check: no more automatic checks. */
  gaveUp: boolean;
}

/** What one GET of the post's URL said. */
export interface LiveAnswer {
  live: boolean;
  status?: number;
  error?: string;
}

/** A GET of `url` under the outgoing-fetch rules: live when it answers 2xx. */
export async function fetchLive(url: string, policy: OutgoingFetchPolicy): Promise<LiveAnswer> {
  try {
    const response = await safeFetch(url, {
      policy,
      maxBytes: CHECK_MAX_BYTES,
      overflow: "truncate",
      maxRedirects: CHECK_MAX_REDIRECTS,
      timeoutMs: CHECK_TIMEOUT_MS,
      headers: { accept: "text/html,*/*" },
    });
    return response.status >= 200 && response.status < 300
      ? { live: true, status: response.status }
      : { live: false, status: response.status, error: `${response.status} ${response.statusText}`.trim() };
  } catch (error) {
    return { live: false, error: error instanceof Error ? error.message : String(error) };
  }
}

interface LiveRow {
  post_id: string;
  url: string;
  live_at: Date | null;
  first_checked_at: Date;
  checked_at: Date;
  next_check_at: Date | null;
  checks: number;
  last_status: number | null;
  last_error: string | null;
  gave_up: boolean;
}

const COLUMNS = `post_id::text AS post_id, url, live_at, first_checked_at, checked_at, next_check_at,
  checks, last_status, last_error, gave_up`;

function toCheck(row: LiveRow): LiveCheck {
  return {
    postId: row.post_id,
    url: row.url,
    liveAt: row.live_at,
    firstCheckedAt: row.first_checked_at,
    checkedAt: row.checked_at,
    nextCheckAt: row.next_check_at,
    checks: row.checks,
    lastStatus: row.last_status,
    lastError: row.last_error,
    gaveUp: row.gave_up,
  };
}

export class LiveChecks {
  constructor(
    private readonly database: Database,
    private readonly backoff: Backoff,
    private readonly now: DatabaseNow = DATABASE_DECIDES,
  ) {}

  async get(postId: string): Promise<LiveCheck | null> {
    const result = await this.database.query<LiveRow>(
      `SELECT ${COLUMNS} FROM syndication_live_checks WHERE post_id = $1::bigint`,
      [postId],
    );
    const row = result.rows[0];
    return row ? toCheck(row) : null;
  }

  /** The checks of many posts (for the page), keyed by post id. */
  async forPosts(postIds: readonly string[]): Promise<Map<string, LiveCheck>> {
    const checks = new Map<string, LiveCheck>();
    if (postIds.length === 0) return checks;
    const result = await this.database.query<LiveRow>(
      `SELECT ${COLUMNS} FROM syndication_live_checks WHERE post_id = ANY($1::bigint[])`,
      [postIds],
    );
    for (const row of result.rows) checks.set(row.post_id, toCheck(row));
    return checks;
  }

  /**
   * Records one answer. Not live: check n waits min(2^n × baseMs, maxMs), and a day after the
   * first check the post gives up (waits for the user).
   */
  async record(postId: string, url: string, answer: LiveAnswer): Promise<LiveCheck> {
    const now = sqlNow(9);
    const result = await this.database.query<LiveRow>(
      `INSERT INTO syndication_live_checks AS c
         (post_id, url, live_at, checks, last_status, last_error, next_check_at, first_checked_at, checked_at)
       VALUES ($1::bigint, $2, CASE WHEN $3::boolean THEN ${now} END, 1, $4::int, $5,
               CASE WHEN NOT $3::boolean THEN ${now} + ${sqlBackoffMs("1", "$6::float8", "$7::float8")} * interval '1 millisecond' END,
               ${now}, ${now})
       ON CONFLICT (post_id) DO UPDATE
         SET url = EXCLUDED.url, checks = c.checks + 1, checked_at = ${now},
             live_at = CASE WHEN $3::boolean THEN ${now} ELSE c.live_at END,
             last_status = EXCLUDED.last_status, last_error = EXCLUDED.last_error,
             gave_up = NOT $3::boolean AND c.first_checked_at < ${now} - $8::int * interval '1 millisecond',
             next_check_at = CASE WHEN $3::boolean THEN NULL
               ELSE ${now} + ${sqlBackoffMs("c.checks + 1", "$6::float8", "$7::float8")}
                 * interval '1 millisecond' END
       RETURNING ${COLUMNS}`,
      [
        postId,
        url,
        answer.live,
        answer.status ?? null,
        answer.error?.slice(0, 500) ?? null,
        this.backoff.baseMs,
        this.backoff.maxMs,
        GIVE_UP_AFTER_MS,
        this.now(),
      ],
    );
    return toCheck(result.rows[0] as LiveRow);
  }

  /** How many posts gave up waiting for their page (they need the user). */
  async countGaveUp(): Promise<number> {
    const result = await this.database.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM syndication_live_checks c JOIN post_source p ON p.id = c.post_id
        WHERE c.gave_up AND p.deleted_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM syndication_targets t WHERE t.post_id = c.post_id)`,
    );
    return result.rows[0]?.count ?? 0;
  }
}
