// The ledger: a row per (post, target) saying what was sent, and a history of attempts. Every
// change of state is one conditional statement, so that instances sharing the database agree on
// who may send what without any lock held in memory.
import { randomBytes } from "node:crypto";
import type { Database } from "../server/database/types.ts";
import type { Attempt, LedgerEntry, TargetState, Trigger } from "./types.ts";

/** What the user is told about a send whose process died before it learned the outcome. */
export const UNKNOWN_OUTCOME_ERROR = "unknown: check the target";
const RESENDING_NOTE = "Interrupted mid-send; sending again with the same idempotency key";
const MAX_ERROR_LENGTH = 2000;

interface TargetRow {
  post_id: string;
  target_uid: string;
  state: TargetState;
  url: string | null;
  attempts: number;
  last_error: string | null;
  permanent: boolean;
  idempotency_key: string;
  next_attempt_at: Date | null;
  written_back: boolean;
  checkpoint: string | null;
  last_status: number | null;
  claimed_by: string | null;
  claimed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

interface AttemptRow {
  id: string;
  post_id: string;
  target_uid: string;
  run_id: string | null;
  trigger: Trigger;
  started_at: Date;
  finished_at: Date | null;
  outcome: Attempt["outcome"];
  url: string | null;
  error: string | null;
  own_text: string | null;
}

// Ids are bigint: PGlite returns them as numbers and pg as strings, so they are cast to text.
const TARGET_COLUMNS = `post_id::text AS post_id, target_uid, state, url, attempts, last_error, permanent,
  idempotency_key, next_attempt_at, written_back, checkpoint, last_status, claimed_by, claimed_at, created_at, updated_at`;
const ATTEMPT_COLUMNS = `id::text AS id, post_id::text AS post_id, target_uid, run_id::text AS run_id, trigger,
  started_at, finished_at, outcome, url, error, own_text`;

function toEntry(row: TargetRow): LedgerEntry {
  return {
    postId: row.post_id,
    targetUid: row.target_uid,
    state: row.state,
    url: row.url,
    attempts: row.attempts,
    lastError: row.last_error,
    permanent: row.permanent,
    idempotencyKey: row.idempotency_key,
    nextAttemptAt: row.next_attempt_at,
    writtenBack: row.written_back,
    checkpoint: row.checkpoint,
    lastStatus: row.last_status,
    claimedBy: row.claimed_by,
    claimedAt: row.claimed_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toAttempt(row: AttemptRow): Attempt {
  return {
    id: row.id,
    postId: row.post_id,
    targetUid: row.target_uid,
    runId: row.run_id,
    trigger: row.trigger,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    outcome: row.outcome,
    url: row.url,
    error: row.error,
    ownText: row.own_text,
  };
}

/**
 * A target's error is its own text: control characters (CR, LF, ESC, NUL…) are made spaces before it
 * is stored, so that it can neither break a line of an event stream or a log nor carry terminal codes.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]+/g;

export const clip = (error: string) => {
  const message = error.replace(CONTROL_CHARACTERS, " ");
  return message.length > MAX_ERROR_LENGTH ? `${message.slice(0, MAX_ERROR_LENGTH - 1)}…` : message;
};

export interface ClaimRequest {
  postId: string;
  targetUid: string;
  /** Used only when the row is created; an existing row keeps its own key. */
  idempotencyKey: string;
  /** The instance claiming (a nonce is added so that each claim is told apart). */
  holder: string;
  runId: string | null;
  trigger: Trigger;
  /**
   * A user's retry: also claims rows in backoff, refused permanently, or of unknown outcome.
   * Never rows being sent or already syndicated.
   */
  force?: boolean;
}

/** The right to send one (post, target), held until recordSuccess or recordFailure. */
export interface Claim {
  entry: LedgerEntry;
  /** The attempts-history row of this send. */
  attemptId: string;
  /** The claimed_by value; the outcome is recorded only while the row still carries it. */
  token: string;
  trigger: Trigger;
}

export interface StaleResolution {
  postId: string;
  targetUid: string;
  /** pending: will be sent again with the same key; unknown: waits for the user. */
  state: "pending" | "unknown";
}

/** How failed sends back off: attempt n waits min(2^n × baseMs, maxMs) (the `retry` options). */
export interface Backoff {
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { baseMs: 60_000, maxMs: 86_400_000 };

export class Ledger {
  constructor(
    private readonly database: Database,
    private readonly backoff: Backoff = DEFAULT_BACKOFF,
  ) {}

  /**
   * Atomically moves the row to `sending` (creating it if needed) when it may be sent now: pending
   * or failed, not refused permanently, and due (no next_attempt_at, or it has passed). Returns
   * null when it may not: syndicated, being sent by someone else, waiting, or unknown. Under
   * concurrency exactly one claimer gets the row, on PGlite and across PostgreSQL instances.
   */
  async claim(request: ClaimRequest): Promise<Claim | null> {
    const token = `${request.holder}/${randomBytes(4).toString("hex")}`;
    const result = await this.database.query<TargetRow & { attempt_id: string }>(
      `WITH claimed AS (
         INSERT INTO syndication_targets AS t
           (post_id, target_uid, state, attempts, idempotency_key, claimed_by, claimed_at)
         VALUES ($1::bigint, $2, 'sending', 1, $3, $4, now())
         ON CONFLICT (post_id, target_uid) DO UPDATE
           SET state = 'sending', attempts = t.attempts + 1, claimed_by = EXCLUDED.claimed_by,
               claimed_at = now(), updated_at = now()
           WHERE (t.state IN ('pending', 'failed', 'skipped') AND NOT t.permanent
                  AND (t.next_attempt_at IS NULL OR t.next_attempt_at <= now()))
              OR ($5::boolean AND t.state IN ('pending', 'failed', 'unknown', 'skipped'))
         RETURNING ${TARGET_COLUMNS}
       ), attempt AS (
         INSERT INTO syndication_attempts (post_id, target_uid, run_id, trigger, outcome)
         SELECT post_id::bigint, target_uid, $6::bigint, $7, 'sending' FROM claimed
         RETURNING id::text AS attempt_id
       )
       SELECT claimed.*, attempt.attempt_id FROM claimed, attempt`,
      [
        request.postId,
        request.targetUid,
        request.idempotencyKey,
        token,
        request.force ?? false,
        request.runId,
        request.trigger,
      ],
    );
    const row = result.rows[0];
    if (!row) return null;
    return { entry: toEntry(row), attemptId: row.attempt_id, token, trigger: request.trigger };
  }

  /** The target returned `url`. Recorded even if the row was meanwhile marked unknown. */
  async recordSuccess(claim: Claim, url: string): Promise<LedgerEntry | null> {
    const result = await this.database.query<TargetRow>(
      `WITH attempt AS (
         UPDATE syndication_attempts SET outcome = 'syndicated', url = $3, finished_at = now()
          WHERE id = $5::bigint
       )
       UPDATE syndication_targets
          SET state = 'syndicated', url = $3, last_error = NULL, permanent = false,
              next_attempt_at = NULL, written_back = false, checkpoint = NULL, updated_at = now()
        WHERE post_id = $1::bigint AND target_uid = $2 AND claimed_by = $4
          AND state IN ('sending', 'unknown')
        RETURNING ${TARGET_COLUMNS}`,
      [claim.entry.postId, claim.entry.targetUid, url, claim.token, claim.attemptId],
    );
    const row = result.rows[0];
    return row ? toEntry(row) : null;
  }

  /**
   * The send failed. A permanent refusal waits for the user; otherwise attempt n waits
   * min(2^n × retry.baseMs, retry.maxMs) (2^n minutes up to a day by default), or until `retryAt`
   * when the target named a later time (its rate-limit reset), before a run may claim it again.
   */
  async recordFailure(
    claim: Claim,
    {
      error,
      permanent,
      retryAt,
      status,
    }: { error: string; permanent: boolean; retryAt?: Date; status?: number },
  ): Promise<LedgerEntry | null> {
    const message = clip(error);
    const result = await this.database.query<TargetRow>(
      `WITH attempt AS (
         UPDATE syndication_attempts SET outcome = 'failed', error = $3, finished_at = now()
          WHERE id = $6::bigint
       )
       UPDATE syndication_targets
          SET state = 'failed', last_error = $3, permanent = $4::boolean, last_status = $8::int,
              updated_at = now(),
              next_attempt_at = CASE WHEN $4::boolean THEN NULL
                ELSE GREATEST(
                  now() + LEAST(power(2, LEAST(attempts, 40)) * $9::float8, $10::float8)
                    * interval '1 millisecond',
                  $7::timestamptz) END
        WHERE post_id = $1::bigint AND target_uid = $2 AND claimed_by = $5 AND state = 'sending'
        RETURNING ${TARGET_COLUMNS}`,
      [
        claim.entry.postId,
        claim.entry.targetUid,
        message,
        permanent,
        claim.token,
        claim.attemptId,
        retryAt?.toISOString() ?? null,
        status ?? null,
        this.backoff.baseMs,
        this.backoff.maxMs,
      ],
    );
    const row = result.rows[0];
    return row ? toEntry(row) : null;
  }

  /**
   * Records a send whose outcome nobody knows (it timed out, or the connection broke after the
   * request went out) to a target without idempotency: like a send interrupted by a crash, it is
   * never sent again automatically; the user confirms the copy or sends it again.
   */
  async recordUnknown(claim: Claim, error: string): Promise<LedgerEntry | null> {
    const message = clip(`${error}; ${UNKNOWN_OUTCOME_ERROR}`);
    const result = await this.database.query<TargetRow>(
      `WITH attempt AS (
         UPDATE syndication_attempts SET outcome = 'unknown', error = $3, finished_at = now()
          WHERE id = $5::bigint
       )
       UPDATE syndication_targets
          SET state = 'unknown', last_error = $3, permanent = false, next_attempt_at = NULL,
              updated_at = now()
        WHERE post_id = $1::bigint AND target_uid = $2 AND claimed_by = $4 AND state = 'sending'
        RETURNING ${TARGET_COLUMNS}`,
      [claim.entry.postId, claim.entry.targetUid, message, claim.token, claim.attemptId],
    );
    const row = result.rows[0];
    return row ? toEntry(row) : null;
  }

  /**
   * Rows left `sending` for longer than `olderThanMs` belong to a process that died mid-send.
   * Targets that honour the idempotency key get them back as pending (the next claim sends again
   * with the same key); for the others nobody knows whether the copy exists, so they become
   * `unknown` and are never sent again automatically.
   */
  async resolveStale(
    olderThanMs: number,
    idempotentUids: readonly string[],
    postId?: string,
  ): Promise<StaleResolution[]> {
    const result = await this.database.query<{
      post_id: string;
      target_uid: string;
      state: "pending" | "unknown";
    }>(
      `WITH resolved AS (
         UPDATE syndication_targets
            SET state = CASE WHEN target_uid = ANY($2::text[]) THEN 'pending' ELSE 'unknown' END,
                last_error = CASE WHEN target_uid = ANY($2::text[]) THEN $3 ELSE $4 END,
                next_attempt_at = NULL, updated_at = now()
          WHERE state = 'sending' AND claimed_at < now() - $1::int * interval '1 millisecond'
            AND ($5::bigint IS NULL OR post_id = $5::bigint)
          RETURNING post_id, target_uid, state, claimed_by
       ), attempts AS (
         UPDATE syndication_attempts AS a
            SET outcome = 'unknown', error = $4, finished_at = now()
           FROM resolved
          WHERE a.post_id = resolved.post_id AND a.target_uid = resolved.target_uid
            AND a.outcome = 'sending'
       )
       SELECT post_id::text AS post_id, target_uid, state FROM resolved`,
      [olderThanMs, idempotentUids, RESENDING_NOTE, UNKNOWN_OUTCOME_ERROR, postId ?? null],
    );
    return result.rows.map((row) => ({ postId: row.post_id, targetUid: row.target_uid, state: row.state }));
  }

  /**
   * The user confirms the target holds the post at `url` (after an unknown outcome, or a failure
   * that in fact went through). Null when there is no such row or it is being sent right now.
   */
  async markSyndicated(postId: string, targetUid: string, url: string): Promise<LedgerEntry | null> {
    const result = await this.database.query<TargetRow>(
      `UPDATE syndication_targets
          SET state = 'syndicated', url = $3, last_error = NULL, permanent = false,
              next_attempt_at = NULL, updated_at = now()
        WHERE post_id = $1::bigint AND target_uid = $2 AND state IN ('pending', 'failed', 'unknown', 'syndicated')
        RETURNING ${TARGET_COLUMNS}`,
      [postId, targetUid, url],
    );
    const row = result.rows[0];
    return row ? toEntry(row) : null;
  }

  /**
   * The user chose not to send the post to this target ("Skip for this post"), whatever happened
   * before: a failure, an unknown outcome, or nothing yet. Null when it has the post or is being
   * sent right now. Should the post name the target again, it is claimed like a pending one.
   */
  async markSkipped(postId: string, targetUid: string, idempotencyKey: string): Promise<LedgerEntry | null> {
    const result = await this.database.query<TargetRow>(
      `INSERT INTO syndication_targets AS t (post_id, target_uid, state, attempts, idempotency_key)
       VALUES ($1::bigint, $2, 'skipped', 0, $3)
       ON CONFLICT (post_id, target_uid) DO UPDATE
         SET state = 'skipped', permanent = false, next_attempt_at = NULL, updated_at = now()
         WHERE t.state IN ('pending', 'failed', 'unknown', 'skipped')
       RETURNING ${TARGET_COLUMNS}`,
      [postId, targetUid, idempotencyKey],
    );
    const row = result.rows[0];
    return row ? toEntry(row) : null;
  }

  /**
   * The user asks for another try: failed (in backoff or refused permanently) and unknown rows
   * become pending and due now. `targetUids` limits it to those targets. Returns the rows changed.
   */
  async retry(postId: string, targetUids?: readonly string[]): Promise<LedgerEntry[]> {
    const result = await this.database.query<TargetRow>(
      `UPDATE syndication_targets
          SET state = 'pending', permanent = false, next_attempt_at = NULL, updated_at = now()
        WHERE post_id = $1::bigint AND state IN ('failed', 'unknown')
          AND ($2::text[] IS NULL OR target_uid = ANY($2::text[]))
        RETURNING ${TARGET_COLUMNS}`,
      [postId, targetUids ?? null],
    );
    return result.rows.map(toEntry);
  }

  /** Keeps a syndicator's note of progress with a send it holds (see SyndicateOptions.checkpoint). */
  async saveCheckpoint(claim: Claim, value: string): Promise<void> {
    await this.database.query(
      `UPDATE syndication_targets SET checkpoint = $3
        WHERE post_id = $1::bigint AND target_uid = $2 AND claimed_by = $4 AND state = 'sending'`,
      [claim.entry.postId, claim.entry.targetUid, value.slice(0, MAX_ERROR_LENGTH), claim.token],
    );
  }

  /**
   * The copies' URLs are in the post now. From here on the post is the user's: a URL they remove
   * is not written back again (only a URL the post never received is repaired from the ledger).
   */
  async markWrittenBack(postId: string, targetUids: readonly string[]): Promise<void> {
    if (targetUids.length === 0) return;
    await this.database.query(
      `UPDATE syndication_targets SET written_back = true
        WHERE post_id = $1::bigint AND target_uid = ANY($2::text[]) AND state = 'syndicated'`,
      [postId, targetUids],
    );
  }

  /**
   * How many live posts have a target that waits for the user (refused for good, or of unknown
   * outcome), and how many have one that failed at all, waiting for its backoff included: what
   * "retry everything" would send again. One read for both.
   */
  async attentionCounts(
    targetUids: readonly string[],
  ): Promise<{ needingUser: number; failedOrUnknown: number }> {
    // Only targets that are configured and that the post still names: a removed target, or one the
    // user skipped, needs nothing from them.
    const result = await this.database.query<{ needing_user: number; failed_or_unknown: number }>(
      `SELECT count(DISTINCT t.post_id) FILTER (WHERE t.state = 'unknown' OR t.permanent)::int AS needing_user,
              count(DISTINCT t.post_id)::int AS failed_or_unknown
         FROM syndication_targets t JOIN posts p ON p.id = t.post_id
        WHERE t.state IN ('failed', 'unknown') AND p.deleted_at IS NULL
          AND t.target_uid = ANY($1::text[]) AND p.properties->'mp-syndicate-to' ? t.target_uid`,
      [[...targetUids]],
    );
    const row = result.rows[0];
    return { needingUser: row?.needing_user ?? 0, failedOrUnknown: row?.failed_or_unknown ?? 0 };
  }

  /** The post's rows, in the order they were created. */
  async entriesForPost(postId: string): Promise<LedgerEntry[]> {
    const result = await this.database.query<TargetRow>(
      `SELECT ${TARGET_COLUMNS} FROM syndication_targets WHERE post_id = $1::bigint
        ORDER BY created_at, target_uid`,
      [postId],
    );
    return result.rows.map(toEntry);
  }

  /** The rows of many posts in one query (for the page listing), keyed by post id. */
  async summaryForPosts(postIds: readonly string[]): Promise<Map<string, LedgerEntry[]>> {
    const summary = new Map<string, LedgerEntry[]>();
    if (postIds.length === 0) return summary;
    const result = await this.database.query<TargetRow>(
      `SELECT ${TARGET_COLUMNS} FROM syndication_targets WHERE post_id = ANY($1::bigint[])
        ORDER BY post_id, created_at, target_uid`,
      [postIds],
    );
    for (const row of result.rows) {
      const entries = summary.get(row.post_id) ?? [];
      entries.push(toEntry(row));
      summary.set(row.post_id, entries);
    }
    return summary;
  }

  /** The post's latest attempts, newest first. */
  async attemptsForPost(postId: string, limit = 20): Promise<Attempt[]> {
    const result = await this.database.query<AttemptRow>(
      `SELECT ${ATTEMPT_COLUMNS} FROM syndication_attempts WHERE post_id = $1::bigint
        ORDER BY started_at DESC, id DESC LIMIT $2::int`,
      [postId, limit],
    );
    return result.rows.map(toAttempt);
  }
}
