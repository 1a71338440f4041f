// The ledger: a row per (post, target) saying what was sent, and a history of attempts. Every
// change of state is one conditional statement, so that instances sharing the database agree on
// who may send what without any lock held in memory.
//
// The ledger is a folder by concern: rows.ts (columns and mapping), claims.ts (what a claim is),
// books.ts (the statements sends and follow-ups share), reads.ts (what the page reads),
// follow-ups.ts (updates and deletes of copies), and here the sends themselves.
import { randomBytes } from "node:crypto";
import type { Database, Queryable } from "../../contract/database.ts";
import type { AlongsideStatement } from "../../contract/post-source.ts";
import type { ThreadPost } from "../../contract/thread-progress.ts";
import { jsonValue, together } from "../alongside.ts";
import type { SentCopy } from "../copies/sent-copy.ts";
import { DATABASE_DECIDES, type DatabaseNow, sqlNow } from "../database-now.ts";
import type { LedgerEntry, Operation } from "../types.ts";
import { asListedSql } from "./as-listed.ts";
import { FOLLOW_UPS, failureSql, held, heldSql, SENDS, staleSql, unknownSql } from "./books.ts";
import {
  type Backoff,
  type Claim,
  type ClaimRequest,
  DEFAULT_BACKOFF,
  type OperationClaim,
  type PostClaimRequest,
  type PreparedClaim,
  type StaleResolution,
} from "./claims.ts";
import { LedgerFollowUps } from "./follow-ups.ts";
import { outcomesStatement, type PostOutcomes, type RecordedOutcome, recordedOutcomes } from "./outcomes.ts";
import {
  clip,
  MAX_CHECKPOINT_LENGTH,
  RESENDING_NOTE,
  TARGET_COLUMNS,
  type TargetRow,
  toEntry,
  UNKNOWN_OUTCOME_ERROR,
} from "./rows.ts";

export class Ledger extends LedgerFollowUps {
  constructor(
    database: Database,
    private readonly backoff: Backoff = DEFAULT_BACKOFF,
    now: DatabaseNow = DATABASE_DECIDES,
  ) {
    super(database, now);
  }

  /**
   * Atomically moves the row to `sending` (creating it if needed) when it may be sent now: pending
   * or failed, not refused permanently, and due (no next_attempt_at, or it has passed), and its
   * post not deleted. Returns null when it may not: syndicated, being sent by someone else,
   * waiting, unknown, or the post deleted (the post's row is read under a share lock, so that a
   * delete committed while the claim waits is seen: a deleted post is never sent). Under
   * concurrency exactly one claimer gets the row, on PGlite and across PostgreSQL instances.
   */
  async claim(request: ClaimRequest): Promise<Claim | null> {
    const { targetUid, idempotencyKey, ...post } = request;
    const claims = await this.claimPost({ ...post, targets: [{ targetUid, idempotencyKey }] });
    return claims.get(targetUid) ?? null;
  }

  /**
   * Claims several targets of one post in one statement (decision 0063), each as `claim` would:
   * the claimed ones by uid; a target absent from the answer was refused. The rows are taken in the
   * order of their uids, so that two claimers of the same post never wait on each other in a circle.
   */
  async claimPost(request: PostClaimRequest): Promise<Map<string, Claim>> {
    return this.runClaim(this.prepareClaim(request));
  }

  /**
   * A post's claim made ready and not run: its tokens are made here, before any statement, so that
   * a claim that runs beside a write-back can be read back by them when that write-back's answer is
   * lost (decision 0075).
   */
  prepareClaim(request: PostClaimRequest): PreparedClaim {
    const byUid = new Map(request.targets.map((t) => [t.targetUid, t]));
    const uids = [...byUid.keys()].sort();
    const tokens = new Map(uids.map((uid) => [uid, `${request.holder}/${randomBytes(4).toString("hex")}`]));
    return {
      request,
      uids,
      tokens,
      params: [
        request.postId,
        uids,
        // Stryker disable next-line OptionalChaining: every uid is a key of byUid, so get never misses.
        uids.map((uid) => byUid.get(uid)?.idempotencyKey),
        uids.map((uid) => tokens.get(uid)),
        request.force ?? false,
        request.runId,
        request.trigger,
        this.now(),
        request.asListed ?? null,
        uids.map((uid) => {
          // Stryker disable next-line OptionalChaining: every uid is a key of byUid, so get never misses.
          const sent = byUid.get(uid)?.sent;
          return sent ? JSON.stringify(sent) : null;
        }),
        // Stryker disable next-line OptionalChaining: every uid is a key of byUid, so get never misses.
        uids.map((uid) => byUid.get(uid)?.ownText ?? null),
      ],
    };
  }

  /** Runs a prepared claim as a statement of its own (decision 0063). */
  async runClaim(prepared: PreparedClaim): Promise<Map<string, Claim>> {
    if (prepared.uids.length === 0) return new Map();
    const { rows } = await this.database.query<TargetRow & { attempt_id: string }>(
      `WITH ${claimSql(1, "claimed", "attempt")}
       SELECT claimed.*, attempt.attempt_id FROM claimed JOIN attempt USING (target_uid)`,
      [...prepared.params],
    );
    return this.claimsOf(prepared, rows);
  }

  /**
   * A prepared claim as common table expressions, to run inside another statement (a batch's
   * previous post's write-back, decision 0075): the same SQL as runClaim's, its expressions named
   * apart. Its `returning` reads the claimed rows, for claimsFrom.
   */
  claimStatement(prepared: PreparedClaim): AlongsideStatement {
    return {
      params: prepared.params,
      with: (first) => claimSql(first, "next_claimed", "next_attempt"),
      returning: `(SELECT COALESCE(json_agg(to_json(c)), '[]'::json) FROM (
         SELECT next_claimed.*, next_attempt.attempt_id FROM next_claimed JOIN next_attempt USING (target_uid)) AS c)`,
    };
  }

  /** The claims claimStatement's `returning` read. */
  claimsFrom(prepared: PreparedClaim, value: unknown): Map<string, Claim> {
    const rows = jsonValue<(Record<string, unknown> & { attempt_id: string | number })[]>(value);
    return this.claimsOf(
      prepared,
      (rows ?? []).map((row) => ({ ...fromJson(row), attempt_id: String(row.attempt_id) })),
    );
  }

  /**
   * After a statement that carried a prepared claim threw, what that claim took all the same: the
   * rows still `sending` under its tokens, with the attempt each started under its run (decision
   * 0075, guard 1). A row the claim never took, or that another claim took since, is absent.
   */
  async readBackClaim(prepared: PreparedClaim): Promise<Map<string, Claim>> {
    if (prepared.uids.length === 0) return new Map();
    const { rows } = await this.database.query<TargetRow & { attempt_id: string }>(
      `SELECT t.*, a.id::text AS attempt_id
         FROM (SELECT ${TARGET_COLUMNS} FROM syndication_targets
                WHERE post_id = $1::bigint AND target_uid = ANY($2::text[]) AND state = 'sending'
                  AND claimed_by = ANY($3::text[])) AS t
         JOIN LATERAL (
           SELECT id FROM syndication_attempts
            WHERE post_id = t.post_id::bigint AND target_uid = t.target_uid AND outcome = 'sending'
              AND run_id IS NOT DISTINCT FROM $4::bigint
            ORDER BY id DESC LIMIT 1
         ) AS a ON true`,
      [
        prepared.request.postId,
        prepared.uids,
        prepared.uids.map((uid) => prepared.tokens.get(uid)),
        prepared.request.runId,
      ],
    );
    return this.claimsOf(prepared, rows);
  }

  private claimsOf(prepared: PreparedClaim, rows: readonly (TargetRow & { attempt_id: string })[]) {
    return new Map(
      rows.map((row): [string, Claim] => [
        row.target_uid,
        {
          entry: toEntry(row),
          attemptId: row.attempt_id,
          // Stryker disable next-line StringLiteral: every row read is one of the prepared uids, each with its token.
          token: prepared.tokens.get(row.target_uid) ?? "",
          trigger: prepared.request.trigger,
        },
      ]),
    );
  }

  /**
   * The target returned `url`. Recorded even if the row was meanwhile marked unknown. `on`: the
   * transaction that writes the link back (decision 0061); the outcome statements of this class take
   * it alike.
   */
  async recordSuccess(
    claim: Claim,
    url: string,
    digest: string | null = null,
    /** A thread's posts (decision 0062), kept with the copy for its edits and deletion. */
    thread: readonly ThreadPost[] | null = null,
    on: Queryable = this.database,
  ): Promise<LedgerEntry | null> {
    const result = await on.query<TargetRow>(
      `WITH attempt AS (
         UPDATE syndication_attempts SET outcome = 'syndicated', url = $3, finished_at = ${sqlNow(7)}
          WHERE id = $5::bigint
       )
       UPDATE syndication_targets
          SET state = 'syndicated', url = $3, last_error = NULL, permanent = false,
              next_attempt_at = NULL, written_back = false, checkpoint = NULL, digest = $6,
              thread = $8::jsonb, updated_at = ${sqlNow(7)}
        WHERE post_id = $1::bigint AND target_uid = $2 AND claimed_by = $4
          AND state IN ('sending', 'unknown')
        RETURNING ${TARGET_COLUMNS}`,
      [
        claim.entry.postId,
        claim.entry.targetUid,
        url,
        claim.token,
        claim.attemptId,
        digest,
        this.now(),
        thread && thread.length > 0 ? JSON.stringify(thread) : null,
      ],
    );
    const row = result.rows[0];
    return row ? toEntry(row) : null;
  }

  /**
   * A post's outcomes as statements another statement runs (decision 0068): the post source's
   * write-back (PostSource.updateAlongside), or `recordOutcomes`.
   */
  outcomesStatement(outcomes: PostOutcomes): AlongsideStatement {
    return outcomesStatement(outcomes, this.backoff, this.now());
  }

  /**
   * Records all of a post's outcomes in one statement, without its write-back (nothing to write
   * back, or a source without updateAlongside). Returns the rows it moved, by uid.
   */
  async recordOutcomes(
    outcomes: PostOutcomes,
    /** Run in the same statement (the targets' health). */
    extra?: AlongsideStatement,
  ): Promise<Map<string, RecordedOutcome>> {
    if (outcomes.outcomes.length === 0 && outcomes.writtenBack.length === 0 && !extra) return new Map();
    return recordedOutcomes(await this.runAlongside(together(this.outcomesStatement(outcomes), extra)));
  }

  /** Runs statements meant to go beside a write-back on their own: what their `returning` read. */
  async runAlongside(statement: AlongsideStatement): Promise<unknown> {
    const result = await this.database.query<{ alongside: unknown }>(
      `WITH ${statement.with(1)} SELECT ${statement.returning} AS alongside`,
      [...statement.params],
    );
    // Stryker disable next-line OptionalChaining: a SELECT without FROM answers exactly one row.
    return result.rows[0]?.alongside ?? null;
  }

  /** What an attempt (a send or an edit) is about to send: kept with it for the history. */
  async recordSent(attemptId: string, sent: SentCopy): Promise<void> {
    await this.database.query("UPDATE syndication_attempts SET sent = $2::jsonb WHERE id = $1::bigint", [
      attemptId,
      JSON.stringify(sent),
    ]);
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
    on: Queryable = this.database,
  ): Promise<{ lastError: string | null } | null> {
    const row = held(claim);
    const result = await on.query<{ last_error: string | null }>(failureSql(row.book), [
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
      this.now(),
    ]);
    const updated = result.rows[0];
    return updated ? { lastError: updated.last_error } : null;
  }

  /**
   * The target refused its credentials and holds such posts (SyndicatorPlugin.holdWhileRefused):
   * the row waits, pending, until the target takes posts again (its pause ends).
   */
  async recordHeld(
    claim: Claim | OperationClaim,
    { error, status }: { error: string; status?: number },
    on: Queryable = this.database,
  ): Promise<{ lastError: string | null } | null> {
    const row = held(claim);
    const result = await on.query<{ last_error: string | null }>(heldSql(row.book), [
      row.postId,
      row.targetUid,
      clip(error),
      row.token,
      row.attemptId,
      status ?? null,
      row.operation,
      this.now(),
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
    on: Queryable = this.database,
  ): Promise<{ lastError: string | null } | null> {
    const row = held(claim);
    const message = clip(`${error}; ${UNKNOWN_OUTCOME_ERROR}`);
    const result = await on.query<{ last_error: string | null }>(unknownSql(row.book), [
      row.postId,
      row.targetUid,
      message,
      row.token,
      row.attemptId,
      row.operation,
      this.now(),
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
        this.now(),
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
              next_attempt_at = NULL, updated_at = ${sqlNow(4)}
        WHERE post_id = $1::bigint AND target_uid = $2 AND state IN ('pending', 'failed', 'unknown', 'syndicated')
        RETURNING ${TARGET_COLUMNS}`,
      [postId, targetUid, url, this.now()],
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
      `INSERT INTO syndication_targets AS t
         (post_id, target_uid, state, attempts, idempotency_key, created_at, updated_at)
       VALUES ($1::bigint, $2, 'skipped', 0, $3, ${sqlNow(4)}, ${sqlNow(4)})
       ON CONFLICT (post_id, target_uid) DO UPDATE
         SET state = 'skipped', permanent = false, next_attempt_at = NULL, updated_at = ${sqlNow(4)}
         WHERE t.state IN ('pending', 'failed', 'unknown', 'skipped')
       RETURNING ${TARGET_COLUMNS}`,
      [postId, targetUid, idempotencyKey, this.now()],
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
          SET state = 'pending', permanent = false, next_attempt_at = NULL, updated_at = ${sqlNow(3)}
        WHERE post_id = $1::bigint AND state IN ('failed', 'unknown')
          AND ($2::text[] IS NULL OR target_uid = ANY($2::text[]))
        RETURNING ${TARGET_COLUMNS}`,
      [postId, targetUids ?? null, this.now()],
    );
    return result.rows.map(toEntry);
  }

  /** Keeps a syndicator's note of progress with a send it holds (see SyndicateOptions.checkpoint). */
  async saveCheckpoint(claim: Claim, value: string): Promise<void> {
    await this.database.query(
      `UPDATE syndication_targets SET checkpoint = $3
        WHERE post_id = $1::bigint AND target_uid = $2 AND claimed_by = $4 AND state = 'sending'`,
      [claim.entry.postId, claim.entry.targetUid, value.slice(0, MAX_CHECKPOINT_LENGTH), claim.token],
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
}

/**
 * The claim of a post's targets (decision 0063), its expressions named `claimed` and `attempt` as
 * given, its parameters from $first: the post, the uids (sorted), their keys, their tokens, force,
 * the run, the trigger, "now", the post as listed (null: not compared; decision 0080), what each
 * attempt sends and the own words it carries (null: none; decision 0081). One text for
 * the claim alone and the claim beside a write-back (decision 0075), so that both take the rows
 * alike on every engine. The post's row is compared under the share lock: an edit committed while
 * the claim waits for it is seen.
 */
function claimSql(first: number, claimed: string, attempt: string): string {
  const $ = (n: number) => `$${first + n}`;
  const at = sqlNow(first + 7);
  return `${claimed} AS (
         INSERT INTO syndication_targets AS t
           (post_id, target_uid, state, attempts, idempotency_key, claimed_by, claimed_at, created_at, updated_at)
         SELECT ${$(0)}::bigint, r.target_uid, 'sending', 1, r.idempotency_key, r.claimed_by, ${at}, ${at}, ${at}
           FROM post_source AS p,
                unnest(${$(1)}::text[], ${$(2)}::text[], ${$(3)}::text[]) WITH ORDINALITY
                  AS r(target_uid, idempotency_key, claimed_by, n)
          WHERE p.id = ${$(0)}::bigint AND p.deleted_at IS NULL
            AND (${$(8)}::jsonb IS NULL OR ${$(8)}::jsonb = ${asListedSql("p")})
          ORDER BY r.n
          FOR SHARE OF p
         ON CONFLICT (post_id, target_uid) DO UPDATE
           SET state = 'sending', attempts = t.attempts + 1, claimed_by = EXCLUDED.claimed_by,
               claimed_at = ${at}, updated_at = ${at}
           WHERE (t.state IN ('pending', 'failed', 'skipped') AND NOT t.permanent
                  AND (t.next_attempt_at IS NULL OR t.next_attempt_at <= ${at}))
              OR (${$(4)}::boolean AND t.state IN ('pending', 'failed', 'unknown', 'skipped'))
         RETURNING ${TARGET_COLUMNS}
       ), ${attempt} AS (
         INSERT INTO syndication_attempts
           (post_id, target_uid, run_id, trigger, outcome, started_at, sent, own_text)
         SELECT c.post_id::bigint, c.target_uid, ${$(5)}::bigint, ${$(6)}, 'sending', ${at},
                w.sent::jsonb, w.own_text
           FROM ${claimed} AS c
           JOIN unnest(${$(1)}::text[], ${$(9)}::text[], ${$(10)}::text[]) AS w(target_uid, sent, own_text)
             ON w.target_uid = c.target_uid
         RETURNING target_uid, id::text AS attempt_id
       )`;
}

/** A ledger row read through json (timestamps as text), as the driver would have given it. */
function fromJson(row: Record<string, unknown>): TargetRow {
  const date = (value: unknown) => (value === null || value === undefined ? null : new Date(String(value)));
  return {
    ...(row as unknown as TargetRow),
    post_id: String(row.post_id),
    next_attempt_at: date(row.next_attempt_at),
    claimed_at: date(row.claimed_at),
    created_at: date(row.created_at) ?? new Date(0),
    updated_at: date(row.updated_at) ?? new Date(0),
  };
}
