// When the scheduler next has something to do: the earliest moment anything in the ledger, the
// lease or the awaiting posts becomes due. One statement, served by partial indexes, so that an
// idle server with many syndicated posts wakes cheaply.
import type { Database } from "../../contract/database.ts";
import { publicPostSql } from "../../contract/visibility.ts";
import { DATABASE_DECIDES, type DatabaseNow, sqlNow } from "../database-now.ts";

/** An unlisted or private post is never sent, so it is never due either. */
const PUBLIC = publicPostSql("p");

export interface DueRules {
  /** `sending` rows older than this were left by a process that died. */
  staleMs: number;
  /** schedule.afterPublishMs: a new post is due this long after `published`. */
  afterPublishMs: number;
  /** schedule.whenLive: a new post (no ledger rows yet) waits for its next live check. */
  whenLive: boolean;
  /** The configured targets that may be sent to now (not paused): a post naming only others is never due. */
  targetUids: readonly string[];
}

/**
 * A new post (no ledger rows) whose page was not seen live yet, under schedule.whenLive ($3): the
 * live-check sweep looks at it (live-check-sweep.ts); a run does not wait for it (decision 0049).
 */
const GATED = `$3::boolean AND c.live_at IS NULL
  AND NOT EXISTS (SELECT 1 FROM syndication_targets s WHERE s.post_id = p.id)`;

/** The post names a target of $4 that has no ledger row for it yet. */
const NAMES_AN_UNSENT_TARGET = `EXISTS (
  SELECT 1 FROM jsonb_array_elements_text(p.properties->'mp-syndicate-to') AS u(uid)
   WHERE u.uid = ANY($4::text[])
     AND NOT EXISTS (SELECT 1 FROM syndication_targets r WHERE r.post_id = p.id AND r.target_uid = u.uid))`;

/** When a gated post's page is next checked: afterPublishMs after publishing, and its backoff. */
const CHECK_AT = `GREATEST(p.published + $2::float8 * interval '1 millisecond',
  COALESCE(c.next_check_at, '-infinity'::timestamptz))`;

const GATED_POSTS = `FROM post_source p
  LEFT JOIN syndication_live_checks c ON c.post_id = p.id
 WHERE p.status = 'published' AND p.deleted_at IS NULL
   AND jsonb_array_length(p.properties->'mp-syndicate-to') > 0 AND ${PUBLIC}
   AND ${GATED} AND NOT COALESCE(c.gave_up, false)
   AND ${NAMES_AN_UNSENT_TARGET}`;

/** When the next live check of a new post is due (null: none waits for one). Not a run's moment. */
export async function nextLiveCheck(database: Database, rules: DueRules): Promise<Date | null> {
  // $1 (staleMs) is not needed here, but PostgreSQL wants every parameter used.
  const result = await database.query<{ due: Date | null }>(
    `SELECT min(${CHECK_AT}) AS due ${GATED_POSTS} AND $1::int IS NOT NULL`,
    [rules.staleMs, rules.afterPublishMs, rules.whenLive, [...rules.targetUids]],
  );
  return result.rows[0]?.due ?? null;
}

/** The new posts whose live check is due now, oldest first, at most `limit`. */
export async function dueLiveChecks(
  database: Database,
  rules: DueRules,
  limit: number,
  now: DatabaseNow = DATABASE_DECIDES,
): Promise<{ id: string; url: string }[]> {
  const result = await database.query<{ id: string; url: string }>(
    `SELECT p.id::text AS id, p.url ${GATED_POSTS} AND ${CHECK_AT} <= ${sqlNow(6)} AND $1::int IS NOT NULL
      ORDER BY ${CHECK_AT}, p.id LIMIT $5::int`,
    [rules.staleMs, rules.afterPublishMs, rules.whenLive, [...rules.targetUids], limit, now()],
  );
  return result.rows;
}

/**
 * The earliest due moment (possibly in the past: due now), or null when nothing is pending at all.
 * Due are: failed sends that are not refusals, at their next_attempt_at; pending rows (sends to be
 * made again after a crash, a user's retry), now; `sending` rows, once stale; a lease, when it
 * lapses; posts naming a configured target that has no row yet, afterPublishMs after publishing,
 * unless never sent and not seen live yet (whenLive: see nextLiveCheck, not a run); changed posts
 * whose copies were not followed yet, now; follow-ups (updates, deletes of copies) like sends,
 * except a delete waiting for its copy to arrive.
 */
export async function nextDue(
  database: Database,
  rules: DueRules,
  now: DatabaseNow = DATABASE_DECIDES,
): Promise<Date | null> {
  const result = await database.query<{ due: Date | null }>(
    `SELECT LEAST(
       (SELECT min(COALESCE(t.next_attempt_at, ${sqlNow(5)}))
          FROM syndication_targets t JOIN post_source p ON p.id = t.post_id
         WHERE (t.state IN ('pending', 'skipped') OR (t.state = 'failed' AND NOT t.permanent))
           AND t.target_uid = ANY($4::text[])
           AND p.status = 'published' AND p.deleted_at IS NULL AND ${PUBLIC}
           AND p.properties->'mp-syndicate-to' ? t.target_uid),
       (SELECT min(t.claimed_at) + $1::int * interval '1 millisecond'
          FROM syndication_targets t WHERE t.state = 'sending'),
       (SELECT expires_at FROM syndication_lease WHERE name = 'batch'),
       -- A noted change is due at once: noticed_at is the trigger's clock_timestamp(), a version
       -- stamp for forgetting the change, not a due moment of the core's clock.
       (SELECT LEAST(min(noticed_at), ${sqlNow(5)}) FROM syndication_post_changes
         HAVING min(noticed_at) IS NOT NULL),
       (SELECT min(COALESCE(o.next_attempt_at, ${sqlNow(5)})) FROM syndication_operations o
         WHERE (o.state = 'pending' OR (o.state = 'failed' AND NOT o.permanent))
           AND o.target_uid = ANY($4::text[])
           AND NOT EXISTS (SELECT 1 FROM syndication_targets c
                            WHERE c.post_id = o.post_id AND c.target_uid = o.target_uid
                              AND c.state = 'sending')),
       (SELECT min(o.claimed_at) + $1::int * interval '1 millisecond'
          FROM syndication_operations o WHERE o.state = 'sending'),
       (SELECT min(p.published + $2::float8 * interval '1 millisecond')
          FROM post_source p
          LEFT JOIN syndication_live_checks c ON c.post_id = p.id
         WHERE p.status = 'published' AND p.deleted_at IS NULL
           AND jsonb_array_length(p.properties->'mp-syndicate-to') > 0 AND ${PUBLIC}
           AND NOT (${GATED})
           AND ${NAMES_AN_UNSENT_TARGET})
     ) AS due`,
    [rules.staleMs, rules.afterPublishMs, rules.whenLive, [...rules.targetUids], now()],
  );
  return result.rows[0]?.due ?? null;
}
