// The ledger: a row per (post, target) saying what was sent, and a history of attempts. Every
// change of state is one conditional statement, so that instances sharing the database agree on
// who may send what without any lock held in memory.
import { randomBytes } from "node:crypto";
import type { Database } from "../contract/database.ts";
import type {
  Attempt,
  FollowUp,
  LedgerEntry,
  Operation,
  OperationEntry,
  OperationState,
  TargetState,
  Trigger,
} from "./types.ts";

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
  digest: string | null;
}

interface OperationRow {
  post_id: string;
  target_uid: string;
  operation: FollowUp;
  state: OperationState;
  url: string | null;
  digest: string | null;
  attempts: number;
  last_error: string | null;
  permanent: boolean;
  last_status: number | null;
  idempotency_key: string;
  next_attempt_at: Date | null;
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
  operation: Operation;
}

// Ids are bigint: PGlite returns them as numbers and pg as strings, so they are cast to text.
const TARGET_COLUMNS = `post_id::text AS post_id, target_uid, state, url, attempts, last_error, permanent,
  idempotency_key, next_attempt_at, written_back, checkpoint, last_status, claimed_by, claimed_at, created_at, updated_at,
  digest`;
const OPERATION_COLUMNS = `post_id::text AS post_id, target_uid, operation, state, url, digest, attempts, last_error,
  permanent, last_status, idempotency_key, next_attempt_at, created_at, updated_at`;
const ATTEMPT_COLUMNS = `id::text AS id, post_id::text AS post_id, target_uid, run_id::text AS run_id, trigger,
  started_at, finished_at, outcome, url, error, own_text, operation`;

/**
 * Where a claimed row lives: sends in syndication_targets (one per post and target), follow-ups in
 * syndication_operations (one per post, target and operation). The statements that move a claimed
 * row on are the same for both.
 */
interface Book {
  table: string;
  /** Matches the row's operation against parameter $n. */
  operationKey(n: number): string;
  /** The operation as a column of the row. */
  operationColumn: string;
}

const SENDS: Book = {
  table: "syndication_targets",
  operationKey: (n) => `$${n}::text = 'create'`,
  operationColumn: "'create'::text",
};
const FOLLOW_UPS: Book = {
  table: "syndication_operations",
  operationKey: (n) => `operation = $${n}::text`,
  operationColumn: "operation",
};

/** The failure of a claimed row: a refusal waits for the user, anything else backs off. */
const failureSql = (book: Book) => `WITH attempt AS (
         UPDATE syndication_attempts SET outcome = 'failed', error = $3, finished_at = now()
          WHERE id = $6::bigint
       )
       UPDATE ${book.table}
          SET state = 'failed', last_error = $3, permanent = $4::boolean, last_status = $8::int,
              updated_at = now(),
              next_attempt_at = CASE WHEN $4::boolean THEN NULL
                ELSE GREATEST(
                  now() + LEAST(power(2, LEAST(attempts, 40)) * $9::float8, $10::float8)
                    * interval '1 millisecond',
                  $7::timestamptz) END
        WHERE post_id = $1::bigint AND target_uid = $2 AND ${book.operationKey(11)}
          AND claimed_by = $5 AND state = 'sending'
        RETURNING post_id::text AS post_id, target_uid, last_error`;

/** A claimed row whose outcome nobody knows: never sent again automatically. */
const unknownSql = (book: Book) => `WITH attempt AS (
         UPDATE syndication_attempts SET outcome = 'unknown', error = $3, finished_at = now()
          WHERE id = $5::bigint
       )
       UPDATE ${book.table}
          SET state = 'unknown', last_error = $3, permanent = false, next_attempt_at = NULL,
              updated_at = now()
        WHERE post_id = $1::bigint AND target_uid = $2 AND ${book.operationKey(6)}
          AND claimed_by = $4 AND state = 'sending'
        RETURNING post_id::text AS post_id, target_uid, last_error`;

/** Claimed rows left `sending` by a dead process: sent again with their key, or unknown. */
const staleSql = (book: Book) => `WITH resolved AS (
         UPDATE ${book.table}
            SET state = CASE WHEN target_uid = ANY($2::text[]) THEN 'pending' ELSE 'unknown' END,
                last_error = CASE WHEN target_uid = ANY($2::text[]) THEN $3 ELSE $4 END,
                next_attempt_at = NULL, updated_at = now()
          WHERE state = 'sending' AND claimed_at < now() - $1::int * interval '1 millisecond'
            AND ($5::bigint IS NULL OR post_id = $5::bigint)
          RETURNING post_id, target_uid, state, ${book.operationColumn} AS operation
       ), attempts AS (
         UPDATE syndication_attempts AS a
            SET outcome = 'unknown', error = $4, finished_at = now()
           FROM resolved
          WHERE a.post_id = resolved.post_id AND a.target_uid = resolved.target_uid
            AND a.operation = resolved.operation AND a.outcome = 'sending'
       )
       SELECT post_id::text AS post_id, target_uid, state, operation FROM resolved`;

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
    digest: row.digest,
  };
}

function toOperation(row: OperationRow): OperationEntry {
  return {
    postId: row.post_id,
    targetUid: row.target_uid,
    operation: row.operation,
    state: row.state,
    url: row.url,
    digest: row.digest,
    attempts: row.attempts,
    lastError: row.last_error,
    permanent: row.permanent,
    lastStatus: row.last_status,
    idempotencyKey: row.idempotency_key,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A new key for each follow-up, and for the send of a copy made again after its delete. */
export const freshKey = () => randomBytes(16).toString("hex");

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
    operation: row.operation,
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

/** The right to carry out one follow-up (update or delete of a copy), like a Claim for a send. */
export interface OperationClaim {
  entry: OperationEntry;
  attemptId: string;
  token: string;
  trigger: Trigger;
}

export interface OperationClaimRequest {
  postId: string;
  targetUid: string;
  operation: FollowUp;
  holder: string;
  runId: string | null;
  trigger: Trigger;
  /** A user's retry: also claims rows refused permanently or of unknown outcome. */
  force?: boolean;
}

/** What a failure or an unknown outcome was recorded against. */
interface Held {
  postId: string;
  targetUid: string;
  operation: Operation;
  book: Book;
  token: string;
  attemptId: string;
}

const held = (claim: Claim | OperationClaim): Held => {
  const operation = "operation" in claim.entry ? claim.entry.operation : "create";
  return {
    postId: claim.entry.postId,
    targetUid: claim.entry.targetUid,
    operation,
    book: operation === "create" ? SENDS : FOLLOW_UPS,
    token: claim.token,
    attemptId: claim.attemptId,
  };
};

export interface StaleResolution {
  postId: string;
  targetUid: string;
  operation: Operation;
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
   * or failed, not refused permanently, and due (no next_attempt_at, or it has passed), and its
   * post not deleted. Returns null when it may not: syndicated, being sent by someone else,
   * waiting, unknown, or the post deleted (the post's row is read under a share lock, so that a
   * delete committed while the claim waits is seen: a deleted post is never sent). Under
   * concurrency exactly one claimer gets the row, on PGlite and across PostgreSQL instances.
   */
  async claim(request: ClaimRequest): Promise<Claim | null> {
    const token = `${request.holder}/${randomBytes(4).toString("hex")}`;
    const row = await this.claimRow<TargetRow>(
      `WITH claimed AS (
         INSERT INTO syndication_targets AS t
           (post_id, target_uid, state, attempts, idempotency_key, claimed_by, claimed_at)
         SELECT $1::bigint, $2, 'sending', 1, $3, $4, now() FROM post_source
          WHERE id = $1::bigint AND deleted_at IS NULL FOR SHARE
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
      [request.postId, request.targetUid, request.idempotencyKey, token],
      request,
    );
    return row ? { entry: toEntry(row), attemptId: row.attempt_id, token, trigger: request.trigger } : null;
  }

  /**
   * Runs a claim statement: $1 to $4 are given, $5 to $7 are the request's force, run and trigger.
   * Returns the claimed row with its attempt's id, or undefined.
   */
  private async claimRow<Row>(
    sql: string,
    params: unknown[],
    request: { force?: boolean; runId: string | null; trigger: Trigger },
  ): Promise<(Row & { attempt_id: string }) | undefined> {
    const result = await this.database.query<Row & { attempt_id: string }>(sql, [
      ...params,
      request.force ?? false,
      request.runId,
      request.trigger,
    ]);
    return result.rows[0];
  }

  /** The target returned `url`. Recorded even if the row was meanwhile marked unknown. */
  async recordSuccess(claim: Claim, url: string, digest: string | null = null): Promise<LedgerEntry | null> {
    const result = await this.database.query<TargetRow>(
      `WITH attempt AS (
         UPDATE syndication_attempts SET outcome = 'syndicated', url = $3, finished_at = now()
          WHERE id = $5::bigint
       )
       UPDATE syndication_targets
          SET state = 'syndicated', url = $3, last_error = NULL, permanent = false,
              next_attempt_at = NULL, written_back = false, checkpoint = NULL, digest = $6,
              updated_at = now()
        WHERE post_id = $1::bigint AND target_uid = $2 AND claimed_by = $4
          AND state IN ('sending', 'unknown')
        RETURNING ${TARGET_COLUMNS}`,
      [claim.entry.postId, claim.entry.targetUid, url, claim.token, claim.attemptId, digest],
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
    claim: Claim | OperationClaim,
    {
      error,
      permanent,
      retryAt,
      status,
    }: { error: string; permanent: boolean; retryAt?: Date; status?: number },
  ): Promise<{ lastError: string | null } | null> {
    const row = held(claim);
    const result = await this.database.query<{ last_error: string | null }>(failureSql(row.book), [
      row.postId,
      row.targetUid,
      clip(error),
      permanent,
      row.token,
      row.attemptId,
      retryAt?.toISOString() ?? null,
      status ?? null,
      this.backoff.baseMs,
      this.backoff.maxMs,
      row.operation,
    ]);
    const updated = result.rows[0];
    return updated ? { lastError: updated.last_error } : null;
  }

  /**
   * Records a send whose outcome nobody knows (it timed out, or the connection broke after the
   * request went out) to a target without idempotency: like a send interrupted by a crash, it is
   * never sent again automatically; the user confirms the copy or sends it again.
   */
  async recordUnknown(
    claim: Claim | OperationClaim,
    error: string,
  ): Promise<{ lastError: string | null } | null> {
    const row = held(claim);
    const message = clip(`${error}; ${UNKNOWN_OUTCOME_ERROR}`);
    const result = await this.database.query<{ last_error: string | null }>(unknownSql(row.book), [
      row.postId,
      row.targetUid,
      message,
      row.token,
      row.attemptId,
      row.operation,
    ]);
    const updated = result.rows[0];
    return updated ? { lastError: updated.last_error } : null;
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
    const resolved: StaleResolution[] = [];
    for (const book of [SENDS, FOLLOW_UPS]) {
      const result = await this.database.query<{
        post_id: string;
        target_uid: string;
        state: "pending" | "unknown";
        operation: Operation;
      }>(staleSql(book), [
        olderThanMs,
        idempotentUids,
        RESENDING_NOTE,
        UNKNOWN_OUTCOME_ERROR,
        postId ?? null,
      ]);
      for (const row of result.rows)
        resolved.push({
          postId: row.post_id,
          targetUid: row.target_uid,
          state: row.state,
          operation: row.operation,
        });
    }
    return resolved;
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
         FROM syndication_targets t JOIN post_source p ON p.id = t.post_id
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

  /**
   * Asks for a follow-up of a copy, or says there is none to make (cancelled, kept). An existing
   * row being carried out is left alone; one already asked for the same copy and digest keeps its
   * backoff, refusal and key; anything else starts afresh with a new key.
   */
  async requestOperation(request: {
    postId: string;
    targetUid: string;
    operation: FollowUp;
    state: Extract<OperationState, "pending" | "cancelled" | "kept">;
    url: string | null;
    digest: string | null;
  }): Promise<void> {
    await this.database.query(
      `INSERT INTO syndication_operations AS o
         (post_id, target_uid, operation, state, url, digest, idempotency_key)
       VALUES ($1::bigint, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (post_id, target_uid, operation) DO UPDATE
         SET state = EXCLUDED.state, url = EXCLUDED.url, digest = EXCLUDED.digest,
             idempotency_key = EXCLUDED.idempotency_key, attempts = 0, last_error = NULL,
             permanent = false, last_status = NULL, next_attempt_at = NULL, updated_at = now()
         WHERE o.state <> 'sending'
           AND (o.digest IS DISTINCT FROM EXCLUDED.digest OR o.url IS DISTINCT FROM EXCLUDED.url
                OR (o.state <> EXCLUDED.state
                    AND NOT (o.state IN ('pending', 'failed', 'unknown') AND EXCLUDED.state = 'pending')))`,
      [
        request.postId,
        request.targetUid,
        request.operation,
        request.state,
        request.url,
        request.digest,
        freshKey(),
      ],
    );
  }

  /**
   * Takes a follow-up to carry out, like `claim` takes a send: due, not refused, not being carried
   * out; and only while it still makes sense: the copy exists (its send is `syndicated`, whose URL
   * the row takes), and the post is deleted for a delete, not deleted for an update.
   */
  async claimOperation(request: OperationClaimRequest): Promise<OperationClaim | null> {
    const token = `${request.holder}/${randomBytes(4).toString("hex")}`;
    const row = await this.claimRow<OperationRow>(
      `WITH claimed AS (
         UPDATE syndication_operations AS o
            SET state = 'sending', attempts = o.attempts + 1, claimed_by = $4, claimed_at = now(),
                url = c.url, updated_at = now()
           FROM syndication_targets c, post_source p
          WHERE o.post_id = $1::bigint AND o.target_uid = $2 AND o.operation = $3
            AND c.post_id = o.post_id AND c.target_uid = o.target_uid AND c.state = 'syndicated'
            AND p.id = o.post_id AND (p.deleted_at IS NOT NULL) = (o.operation = 'delete')
            AND ((o.state IN ('pending', 'failed') AND NOT o.permanent
                  AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= now()))
                 OR ($5::boolean AND o.state IN ('pending', 'failed', 'unknown')))
          RETURNING o.*
       ), attempt AS (
         INSERT INTO syndication_attempts (post_id, target_uid, run_id, trigger, outcome, operation, url)
         SELECT post_id, target_uid, $6::bigint, $7, 'sending', operation, url FROM claimed
         RETURNING id::text AS attempt_id
       )
       SELECT ${OPERATION_COLUMNS.replaceAll("post_id::text", "claimed.post_id::text")}, attempt.attempt_id
         FROM claimed, attempt`,
      [request.postId, request.targetUid, request.operation, token],
      request,
    );
    return row
      ? { entry: toOperation(row), attemptId: row.attempt_id, token, trigger: request.trigger }
      : null;
  }

  /**
   * The follow-up went through. An update's digest becomes the copy's. A deleted copy is forgotten
   * by its send's row, which waits (pending, with a new key, since the target may remember the old
   * one) to send the post again as a new copy should it be restored. Returns the copy's URL.
   */
  async recordOperationDone(claim: OperationClaim): Promise<string | null> {
    const deleted = claim.entry.operation === "delete";
    const result = await this.database.query<{ url: string | null }>(
      `WITH attempt AS (
         UPDATE syndication_attempts SET outcome = 'syndicated', finished_at = now() WHERE id = $4::bigint
       ), done AS (
         UPDATE syndication_operations
            SET state = 'done', last_error = NULL, permanent = false, last_status = NULL,
                next_attempt_at = NULL, updated_at = now()
          WHERE post_id = $1::bigint AND target_uid = $2 AND operation = $5 AND claimed_by = $3
            AND state IN ('sending', 'unknown')
          RETURNING url, digest
       ), copy AS (
         UPDATE syndication_targets AS c
            SET digest = CASE WHEN $6::boolean THEN NULL ELSE done.digest END,
                state = CASE WHEN $6::boolean THEN 'pending' ELSE c.state END,
                url = CASE WHEN $6::boolean THEN NULL ELSE c.url END,
                idempotency_key = CASE WHEN $6::boolean THEN $7 ELSE c.idempotency_key END,
                attempts = CASE WHEN $6::boolean THEN 0 ELSE c.attempts END,
                written_back = CASE WHEN $6::boolean THEN false ELSE c.written_back END,
                updated_at = now()
           FROM done
          WHERE c.post_id = $1::bigint AND c.target_uid = $2 AND c.url = done.url
       )
       SELECT url FROM done`,
      [
        claim.entry.postId,
        claim.entry.targetUid,
        claim.token,
        claim.attemptId,
        claim.entry.operation,
        deleted,
        freshKey(),
      ],
    );
    return result.rows[0]?.url ?? null;
  }

  /** A copy sent before copies followed their post: what it holds now is taken as what it got. */
  async setBaseline(postId: string, targetUid: string, digest: string): Promise<void> {
    await this.database.query(
      `UPDATE syndication_targets SET digest = $3
        WHERE post_id = $1::bigint AND target_uid = $2 AND state = 'syndicated' AND digest IS NULL`,
      [postId, targetUid, digest],
    );
  }

  /** The post's follow-ups, in the order they were asked for. */
  async operationsForPost(postId: string): Promise<OperationEntry[]> {
    const result = await this.database.query<OperationRow>(
      `SELECT ${OPERATION_COLUMNS} FROM syndication_operations WHERE post_id = $1::bigint
        ORDER BY created_at, target_uid, operation`,
      [postId],
    );
    return result.rows.map(toOperation);
  }

  /** Posts with a follow-up due now (pending, or failed and past its backoff), oldest first. */
  async postsWithDueOperations(limit: number): Promise<string[]> {
    const result = await this.database.query<{ post_id: string }>(
      `SELECT post_id::text AS post_id FROM syndication_operations
        WHERE (state = 'pending' OR (state = 'failed' AND NOT permanent))
          AND (next_attempt_at IS NULL OR next_attempt_at <= now())
        GROUP BY post_id ORDER BY min(updated_at) LIMIT $1::int`,
      [limit],
    );
    return result.rows.map((row) => row.post_id);
  }

  /** The user asks for another try of the post's failed or unknown follow-ups. */
  async retryOperations(postId: string, targetUids?: readonly string[]): Promise<number> {
    const result = await this.database.query(
      `UPDATE syndication_operations
          SET state = 'pending', permanent = false, next_attempt_at = NULL, updated_at = now()
        WHERE post_id = $1::bigint AND state IN ('failed', 'unknown')
          AND ($2::text[] IS NULL OR target_uid = ANY($2::text[]))`,
      [postId, targetUids ?? null],
    );
    return result.rowCount;
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
