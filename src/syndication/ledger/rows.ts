// The ledger's rows as the database holds them, and as the core sees them: columns, mapping, and the
// two things every row's text goes through (a fresh key, a clipped error).
import { randomBytes } from "node:crypto";
import { readCopyThread } from "../../contract/copy-thread.ts";
import { readSentCopy } from "../copies/sent-copy.ts";
import type {
  Attempt,
  FollowUp,
  LedgerEntry,
  Operation,
  OperationEntry,
  OperationState,
  TargetState,
  Trigger,
} from "../types.ts";

/** What the user is told about a send whose process died before it learned the outcome. */
export const UNKNOWN_OUTCOME_ERROR = "unknown: check the target";
export const RESENDING_NOTE = "Interrupted mid-send; sending again with the same idempotency key";
export const MAX_ERROR_LENGTH = 2000;
/** A thread's progress names each post (id, URL, digest): room for a long one (decision 0062). */
export const MAX_CHECKPOINT_LENGTH = 32_000;

export interface TargetRow {
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
  /** Only from the reads that join syndication_removed_copies (REMOVED_AT_JOIN). */
  removed_at?: Date | string | null;
  thread: unknown;
}

export interface OperationRow {
  post_id: string;
  target_uid: string;
  operation: FollowUp;
  state: OperationState;
  url: string | null;
  digest: string | null;
  replace: boolean;
  attempts: number;
  last_error: string | null;
  permanent: boolean;
  last_status: number | null;
  idempotency_key: string;
  next_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface AttemptRow {
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
  sent: unknown;
}

// Ids are bigint: PGlite returns them as numbers and pg as strings, so they are cast to text.
export const TARGET_COLUMNS = `post_id::text AS post_id, target_uid, state, url, attempts, last_error, permanent,
  idempotency_key, next_attempt_at, written_back, checkpoint, last_status, claimed_by, claimed_at, created_at, updated_at,
  digest, thread`;
/**
 * When the user removed the row's copy ("Undo a copy"), for the reads the page shows: a removed copy
 * reads "removed by you" in every place, never "skipped" (decision 0054).
 */
export const REMOVED_AT_COLUMN = `(SELECT r.removed_at FROM syndication_removed_copies r
  WHERE r.post_id = syndication_targets.post_id AND r.target_uid = syndication_targets.target_uid) AS removed_at`;
export const OPERATION_COLUMNS = `post_id::text AS post_id, target_uid, operation, state, url, digest, replace, attempts, last_error,
  permanent, last_status, idempotency_key, next_attempt_at, created_at, updated_at`;
export const ATTEMPT_COLUMNS = `id::text AS id, post_id::text AS post_id, target_uid, run_id::text AS run_id, trigger,
  started_at, finished_at, outcome, url, error, own_text, operation, sent`;

export function toEntry(row: TargetRow): LedgerEntry {
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
    thread: readCopyThread(row.thread) ?? null,
    ...(row.removed_at !== undefined ? { removedAt: row.removed_at ? new Date(row.removed_at) : null } : {}),
  };
}

export function toOperation(row: OperationRow): OperationEntry {
  return {
    postId: row.post_id,
    targetUid: row.target_uid,
    operation: row.operation,
    state: row.state,
    url: row.url,
    digest: row.digest,
    replace: row.replace,
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

export function toAttempt(row: AttemptRow): Attempt {
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
    sent: readSentCopy(row.sent),
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
