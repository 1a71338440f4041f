// What the statements that move a claimed row on share, for sends and follow-ups alike: where the row
// lives (its book), the failure, unknown-outcome and stale statements, and the claim's runner.
import type { Database } from "../../contract/database.ts";
import { sqlBackoffMs } from "../../net/backoff.ts";
import { sqlNow } from "../database-now.ts";
import type { Operation, Trigger } from "../types.ts";
import type { Claim, OperationClaim } from "./claims.ts";

/**
 * Where a claimed row lives: sends in syndication_targets (one per post and target), follow-ups in
 * syndication_operations (one per post, target and operation). The statements that move a claimed
 * row on are the same for both.
 */
export interface Book {
  table: string;
  /** Matches the row's operation against parameter $n. */
  operationKey(n: number): string;
  /** The operation as a column of the row. */
  operationColumn: string;
}

export const SENDS: Book = {
  table: "syndication_targets",
  operationKey: (n) => `$${n}::text = 'create'`,
  operationColumn: "'create'::text",
};
export const FOLLOW_UPS: Book = {
  table: "syndication_operations",
  operationKey: (n) => `operation = $${n}::text`,
  operationColumn: "operation",
};

// Each statement's last parameter is "now" (database-now.ts).

/** The failure of a claimed row: a refusal waits for the user, anything else backs off. */
export const failureSql = (book: Book) => `WITH attempt AS (
         UPDATE syndication_attempts SET outcome = 'failed', error = $3, finished_at = ${sqlNow(12)}
          WHERE id = $6::bigint
       )
       UPDATE ${book.table}
          SET state = 'failed', last_error = $3, permanent = $4::boolean, last_status = $8::int,
              updated_at = ${sqlNow(12)},
              next_attempt_at = CASE WHEN $4::boolean THEN NULL
                ELSE GREATEST(
                  ${sqlNow(12)} + ${sqlBackoffMs("attempts", "$9::float8", "$10::float8")}
                    * interval '1 millisecond',
                  $7::timestamptz) END
        WHERE post_id = $1::bigint AND target_uid = $2 AND ${book.operationKey(11)}
          AND claimed_by = $5 AND state = 'sending'
        RETURNING post_id::text AS post_id, target_uid, last_error`;

/**
 * A claimed row refused for its target's credentials, on a target that holds such posts (a
 * connected account): pending again, with the refusal as its last error, so that it goes out by
 * itself once the target takes posts again, and is never shown as failed meanwhile.
 */
export const heldSql = (book: Book) => `WITH attempt AS (
         UPDATE syndication_attempts SET outcome = 'failed', error = $3, finished_at = ${sqlNow(8)}
          WHERE id = $5::bigint
       )
       UPDATE ${book.table}
          SET state = 'pending', last_error = $3, permanent = false, last_status = $6::int,
              next_attempt_at = NULL, updated_at = ${sqlNow(8)}
        WHERE post_id = $1::bigint AND target_uid = $2 AND ${book.operationKey(7)}
          AND claimed_by = $4 AND state = 'sending'
        RETURNING post_id::text AS post_id, target_uid, last_error`;

/** A claimed row whose outcome nobody knows: never sent again automatically. */
export const unknownSql = (book: Book) => `WITH attempt AS (
         UPDATE syndication_attempts SET outcome = 'unknown', error = $3, finished_at = ${sqlNow(7)}
          WHERE id = $5::bigint
       )
       UPDATE ${book.table}
          SET state = 'unknown', last_error = $3, permanent = false, next_attempt_at = NULL,
              updated_at = ${sqlNow(7)}
        WHERE post_id = $1::bigint AND target_uid = $2 AND ${book.operationKey(6)}
          AND claimed_by = $4 AND state = 'sending'
        RETURNING post_id::text AS post_id, target_uid, last_error`;

/** Claimed rows left `sending` by a dead process: sent again with their key, or unknown. */
export const staleSql = (book: Book) => `WITH resolved AS (
         UPDATE ${book.table}
            SET state = CASE WHEN target_uid = ANY($2::text[]) THEN 'pending' ELSE 'unknown' END,
                last_error = CASE WHEN target_uid = ANY($2::text[]) THEN $3 ELSE $4 END,
                next_attempt_at = NULL, updated_at = ${sqlNow(6)}
          WHERE state = 'sending' AND claimed_at < ${sqlNow(6)} - $1::int * interval '1 millisecond'
            AND ($5::bigint IS NULL OR post_id = $5::bigint)
          RETURNING post_id, target_uid, state, ${book.operationColumn} AS operation
       ), attempts AS (
         UPDATE syndication_attempts AS a
            SET outcome = 'unknown', error = $4, finished_at = ${sqlNow(6)}
           FROM resolved
          WHERE a.post_id = resolved.post_id AND a.target_uid = resolved.target_uid
            AND a.operation = resolved.operation AND a.outcome = 'sending'
       )
       SELECT post_id::text AS post_id, target_uid, state, operation FROM resolved`;

/** What a failure or an unknown outcome was recorded against. */
export interface Held {
  postId: string;
  targetUid: string;
  operation: Operation;
  book: Book;
  token: string;
  attemptId: string;
}

export const held = (claim: Claim | OperationClaim): Held => {
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

/**
 * Runs a claim statement: $1 to $4 are given, $5 to $7 are the request's force, run and trigger,
 * $8 is "now" (sqlNow(8)). Returns the claimed rows with their attempts' ids (none when refused).
 */
export async function claimRows<Row>(
  database: Database,
  sql: string,
  params: unknown[],
  request: { force?: boolean; runId: string | null; trigger: Trigger },
  now: string | null,
): Promise<(Row & { attempt_id: string })[]> {
  const result = await database.query<Row & { attempt_id: string }>(sql, [
    ...params,
    request.force ?? false,
    request.runId,
    request.trigger,
    now,
  ]);
  return result.rows;
}

/** A claim statement that takes one row at most (see claimRows): the row, or undefined. */
export async function claimRow<Row>(
  ...args: Parameters<typeof claimRows<Row>>
): Promise<(Row & { attempt_id: string }) | undefined> {
  return (await claimRows<Row>(...args))[0];
}
