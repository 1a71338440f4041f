// Follow-ups of a copy (an update or a delete of what a target holds), asked for, claimed and
// recorded like sends, in syndication_operations.
import { randomBytes } from "node:crypto";
import type { ThreadPost } from "../../contract/thread-progress.ts";
import { sqlNow } from "../database-now.ts";
import type { FollowUp, OperationState } from "../types.ts";
import { claimRow } from "./books.ts";
import type { OperationClaim, OperationClaimRequest } from "./claims.ts";
import { LedgerReads } from "./reads.ts";
import { freshKey, OPERATION_COLUMNS, type OperationRow, toOperation } from "./rows.ts";

export class LedgerFollowUps extends LedgerReads {
  /**
   * The user removes the copy at `url` from its service, keeping the post ("Undo a copy"): noted as
   * removed by them, and its deletion asked for. Returns false when the target holds no such copy.
   */
  async removeCopy(postId: string, targetUid: string, url: string): Promise<boolean> {
    const noted = await this.database.query(
      `INSERT INTO syndication_removed_copies (post_id, target_uid, url, removed_at)
       SELECT post_id, target_uid, url, ${sqlNow(3)} FROM syndication_targets
        WHERE post_id = $1::bigint AND target_uid = $2 AND state = 'syndicated' AND url = $4
       ON CONFLICT (post_id, target_uid) DO UPDATE SET url = EXCLUDED.url, removed_at = EXCLUDED.removed_at
       RETURNING target_uid`,
      [postId, targetUid, this.now(), url],
    );
    if (noted.rows.length === 0) return false;
    await this.requestOperation({
      postId,
      targetUid,
      operation: "delete",
      state: "pending",
      url,
      digest: null,
    });
    return true;
  }

  /** The targets whose copy of the post the user removed, with when. */
  async removedCopies(postId: string): Promise<Map<string, Date>> {
    const result = await this.database.query<{ target_uid: string; removed_at: Date }>(
      "SELECT target_uid, removed_at FROM syndication_removed_copies WHERE post_id = $1::bigint",
      [postId],
    );
    return new Map(result.rows.map((row) => [row.target_uid, new Date(row.removed_at)]));
  }

  /** "Send again": the target is no longer one the user removed the copy from. */
  async forgetRemoval(postId: string, targetUid: string): Promise<boolean> {
    const result = await this.database.query(
      "DELETE FROM syndication_removed_copies WHERE post_id = $1::bigint AND target_uid = $2 RETURNING target_uid",
      [postId, targetUid],
    );
    return result.rows.length > 0;
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
         (post_id, target_uid, operation, state, url, digest, idempotency_key, created_at, updated_at)
       VALUES ($1::bigint, $2, $3, $4, $5, $6, $7, ${sqlNow(8)}, ${sqlNow(8)})
       ON CONFLICT (post_id, target_uid, operation) DO UPDATE
         SET state = EXCLUDED.state, url = EXCLUDED.url, digest = EXCLUDED.digest, replace = false,
             idempotency_key = EXCLUDED.idempotency_key, attempts = 0, last_error = NULL,
             permanent = false, last_status = NULL, next_attempt_at = NULL, updated_at = ${sqlNow(8)}
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
        this.now(),
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
    const row = await claimRow<OperationRow>(
      this.database,
      `WITH claimed AS (
         UPDATE syndication_operations AS o
            SET state = 'sending', attempts = o.attempts + 1, claimed_by = $4, claimed_at = ${sqlNow(8)},
                url = c.url, updated_at = ${sqlNow(8)}
           FROM syndication_targets c, post_source p
          WHERE o.post_id = $1::bigint AND o.target_uid = $2 AND o.operation = $3
            AND c.post_id = o.post_id AND c.target_uid = o.target_uid AND c.state = 'syndicated'
            AND p.id = o.post_id
            -- A copy is deleted with its post, or alone when the user removed it ("Undo a copy").
            AND ((p.deleted_at IS NOT NULL) = (o.operation = 'delete')
                 OR (o.operation = 'delete' AND EXISTS (
                       SELECT 1 FROM syndication_removed_copies r
                        WHERE r.post_id = o.post_id AND r.target_uid = o.target_uid AND r.url = c.url)))
            AND ((o.state IN ('pending', 'failed') AND NOT o.permanent
                  AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= ${sqlNow(8)}))
                 OR ($5::boolean AND o.state IN ('pending', 'failed', 'unknown')))
          RETURNING o.*
       ), attempt AS (
         INSERT INTO syndication_attempts
           (post_id, target_uid, run_id, trigger, outcome, operation, url, started_at)
         SELECT post_id, target_uid, $6::bigint, $7, 'sending', operation, url, ${sqlNow(8)} FROM claimed
         RETURNING id::text AS attempt_id
       )
       SELECT ${OPERATION_COLUMNS.replaceAll("post_id::text", "claimed.post_id::text")}, attempt.attempt_id
         FROM claimed, attempt`,
      [request.postId, request.targetUid, request.operation, token],
      request,
      this.now(),
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
         UPDATE syndication_attempts SET outcome = 'syndicated', finished_at = ${sqlNow(8)} WHERE id = $4::bigint
       ), done AS (
         UPDATE syndication_operations
            SET state = 'done', last_error = NULL, permanent = false, last_status = NULL,
                next_attempt_at = NULL, updated_at = ${sqlNow(8)}
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
                thread = CASE WHEN $6::boolean THEN NULL ELSE c.thread END,
                updated_at = ${sqlNow(8)}
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
        this.now(),
      ],
    );
    return result.rows[0]?.url ?? null;
  }

  /**
   * Keeps a thread's posts as an edit or a deletion left them (decision 0062), while `claim` holds
   * the follow-up: each step is kept before the next is made, so a retry goes on from there.
   */
  async saveCopyThread(claim: OperationClaim, posts: readonly ThreadPost[]): Promise<void> {
    await this.database.query(
      `UPDATE syndication_targets AS c SET thread = $3::jsonb
        WHERE c.post_id = $1::bigint AND c.target_uid = $2 AND c.state = 'syndicated'
          AND EXISTS (SELECT 1 FROM syndication_operations o
                       WHERE o.post_id = c.post_id AND o.target_uid = c.target_uid AND o.operation = $4
                         AND o.claimed_by = $5 AND o.state = 'sending')`,
      [
        claim.entry.postId,
        claim.entry.targetUid,
        posts.length > 0 ? JSON.stringify(posts) : null,
        claim.entry.operation,
        claim.token,
      ],
    );
  }

  /**
   * The user asks for the copy's edit to be made by replacing it (decision 0062: "Replace the
   * thread"): the update kept (or failed) becomes due now, to be carried out by the syndicator's
   * `replace`. Only for a copy that is a thread. Returns false when there is no such edit.
   */
  async requestReplace(postId: string, targetUid: string): Promise<boolean> {
    const result = await this.database.query(
      `UPDATE syndication_operations AS o
          SET state = 'pending', replace = true, attempts = 0, last_error = NULL, permanent = false,
              last_status = NULL, next_attempt_at = NULL, updated_at = ${sqlNow(3)}
         FROM syndication_targets c
        WHERE o.post_id = $1::bigint AND o.target_uid = $2 AND o.operation = 'update'
          AND o.state IN ('kept', 'failed', 'unknown')
          AND c.post_id = o.post_id AND c.target_uid = o.target_uid AND c.state = 'syndicated'
          AND c.thread IS NOT NULL
        RETURNING o.target_uid`,
      [postId, targetUid, this.now()],
    );
    return result.rows.length > 0;
  }

  /**
   * The copy was replaced (decision 0062): the edit is done, and the copy is the new one, at `url`
   * with its posts, holding what the edit asked for; its link is to be written to the post again.
   */
  async recordReplaced(
    claim: OperationClaim,
    url: string,
    thread: readonly ThreadPost[] | null,
  ): Promise<void> {
    await this.database.query(
      `WITH attempt AS (
         UPDATE syndication_attempts SET outcome = 'syndicated', url = $5, finished_at = ${sqlNow(7)}
          WHERE id = $4::bigint
       ), done AS (
         UPDATE syndication_operations
            SET state = 'done', url = $5, last_error = NULL, permanent = false, last_status = NULL,
                next_attempt_at = NULL, updated_at = ${sqlNow(7)}
          WHERE post_id = $1::bigint AND target_uid = $2 AND operation = 'update' AND claimed_by = $3
            AND state IN ('sending', 'unknown')
          RETURNING digest
       )
       UPDATE syndication_targets AS c
          SET url = $5, thread = $6::jsonb, digest = done.digest, written_back = false,
              updated_at = ${sqlNow(7)}
         FROM done
        WHERE c.post_id = $1::bigint AND c.target_uid = $2 AND c.state = 'syndicated'`,
      [
        claim.entry.postId,
        claim.entry.targetUid,
        claim.token,
        claim.attemptId,
        url,
        thread && thread.length > 0 ? JSON.stringify(thread) : null,
        this.now(),
      ],
    );
  }

  /** A copy sent before copies followed their post: what it holds now is taken as what it got. */
  async setBaseline(postId: string, targetUid: string, digest: string): Promise<void> {
    await this.database.query(
      `UPDATE syndication_targets SET digest = $3
        WHERE post_id = $1::bigint AND target_uid = $2 AND state = 'syndicated' AND digest IS NULL`,
      [postId, targetUid, digest],
    );
  }

  /** The user asks for another try of the post's failed or unknown follow-ups. */
  async retryOperations(postId: string, targetUids?: readonly string[]): Promise<number> {
    const result = await this.database.query(
      `UPDATE syndication_operations
          SET state = 'pending', permanent = false, next_attempt_at = NULL, updated_at = ${sqlNow(3)}
        WHERE post_id = $1::bigint AND state IN ('failed', 'unknown')
          AND ($2::text[] IS NULL OR target_uid = ANY($2::text[]))`,
      [postId, targetUids ?? null, this.now()],
    );
    return result.rowCount;
  }
}
