// All of a post's outcomes as one statement (decision 0068): every claimed target's row and its
// attempt moved on as recordSuccess, recordFailure, recordHeld and recordUnknown would move them one by
// one, and the rows whose links the post holds already marked written back. The statement is made
// of common table expressions, so that the post source can run them inside its own UPDATE of the
// post (PostSource.updateAlongside): one statement and one commit for everything a send learnt.
import type { AlongsideStatement } from "../../contract/post-source.ts";
import type { ThreadPost } from "../../contract/thread-progress.ts";
import { sqlBackoffMs } from "../../net/backoff.ts";
import { jsonValue } from "../alongside.ts";
import { sqlNow } from "../database-now.ts";
import type { Backoff, Claim } from "./claims.ts";
import { clip, UNKNOWN_OUTCOME_ERROR } from "./rows.ts";

/** What one claimed send came to, to be recorded with the others of its post. */
export type Outcome =
  | {
      kind: "syndicated";
      claim: Claim;
      url: string;
      /** What the copy holds (decision 0028). */
      digest: string | null;
      /** A thread's posts (decision 0062). */
      thread: readonly ThreadPost[] | null;
      /** The post holds the copy's link already: nothing is left to write back. */
      writtenBack: boolean;
    }
  | { kind: "failed"; claim: Claim; error: string; permanent: boolean; retryAt?: Date; status?: number }
  /** Refused for the target's credentials on a target that holds such posts: pending again. */
  | { kind: "held"; claim: Claim; error: string; status?: number }
  /** Nobody knows whether the copy exists: never sent again automatically. */
  | { kind: "unknown"; claim: Claim; error: string };

/** A row as the outcomes statement left it; a claimed row it did not find (taken since) is absent. */
export interface RecordedOutcome {
  target_uid: string;
  state: string;
  last_error: string | null;
}

export interface PostOutcomes {
  postId: string;
  outcomes: readonly Outcome[];
  /** Targets not sent now whose rows are syndicated and whose links the post already holds. */
  writtenBack: readonly string[];
}

/** The recordset the statement reads: one object per outcome. */
function recordset(outcomes: readonly Outcome[]): string {
  return JSON.stringify(
    outcomes.map((outcome) => {
      const { claim } = outcome;
      const row = { target_uid: claim.entry.targetUid, token: claim.token, attempt_id: claim.attemptId };
      switch (outcome.kind) {
        case "syndicated":
          return {
            ...row,
            kind: "syndicated",
            url: outcome.url,
            digest: outcome.digest,
            thread: outcome.thread && outcome.thread.length > 0 ? outcome.thread : null,
            written_back: outcome.writtenBack,
          };
        case "failed":
          return {
            ...row,
            kind: "failed",
            error: clip(outcome.error),
            permanent: outcome.permanent,
            retry_at: outcome.retryAt?.toISOString() ?? null,
            status: outcome.status ?? null,
          };
        case "held":
          return { ...row, kind: "held", error: clip(outcome.error), status: outcome.status ?? null };
        default:
          return { ...row, kind: "unknown", error: clip(`${outcome.error}; ${UNKNOWN_OUTCOME_ERROR}`) };
      }
    }),
  );
}

/**
 * The statement's parts. Parameters, from $first: the post, the recordset, the written-back uids,
 * the backoff's base and cap, "now" (sqlNow). Each row moves only while it still carries its claim's
 * token and is `sending` (a success also from `unknown`), exactly as the statements of one outcome;
 * the rows are locked first, in the order of their uids, the order a claim takes them, so that a
 * claimer of the same post never waits on this statement in a circle.
 */
export function outcomesStatement(
  { postId, outcomes, writtenBack }: PostOutcomes,
  backoff: Backoff,
  now: string | null,
): AlongsideStatement {
  const claimed = outcomes.map((outcome) => outcome.claim.entry.targetUid);
  // Never a row both recorded and marked: two parts of one statement must not change one row.
  const marked = writtenBack.filter((uid) => !claimed.includes(uid));
  return {
    params: [postId, recordset(outcomes), marked, backoff.baseMs, backoff.maxMs, now],
    with(first) {
      const $ = (n: number) => `$${first + n}`;
      const post = `${$(0)}::bigint`;
      const at = sqlNow(first + 5);
      const syndicated = "r.kind = 'syndicated'";
      return `outcome AS (
         SELECT * FROM jsonb_to_recordset(${$(1)}::jsonb) AS r(target_uid text, token text, attempt_id bigint,
           kind text, url text, error text, permanent boolean, retry_at timestamptz, status int, digest text,
           thread jsonb, written_back boolean)
       ), locked AS (
         SELECT target_uid FROM syndication_targets
          WHERE post_id = ${post} AND target_uid IN (SELECT target_uid FROM outcome)
          ORDER BY target_uid FOR UPDATE
       ), recorded AS (
         UPDATE syndication_targets AS t
            SET state = CASE r.kind WHEN 'held' THEN 'pending' ELSE r.kind END,
                url = CASE WHEN ${syndicated} THEN r.url ELSE t.url END,
                last_error = CASE WHEN ${syndicated} THEN NULL ELSE r.error END,
                permanent = r.kind = 'failed' AND r.permanent,
                last_status = CASE WHEN r.kind IN ('failed', 'held') THEN r.status ELSE t.last_status END,
                next_attempt_at = CASE WHEN r.kind = 'failed' AND NOT r.permanent
                  THEN GREATEST(${at} + ${sqlBackoffMs("t.attempts", `${$(3)}::float8`, `${$(4)}::float8`)}
                         * interval '1 millisecond', r.retry_at) END,
                written_back = CASE WHEN ${syndicated} THEN r.written_back ELSE t.written_back END,
                checkpoint = CASE WHEN ${syndicated} THEN NULL ELSE t.checkpoint END,
                digest = CASE WHEN ${syndicated} THEN r.digest ELSE t.digest END,
                thread = CASE WHEN ${syndicated} THEN r.thread ELSE t.thread END,
                updated_at = ${at}
           FROM outcome AS r
          WHERE (SELECT count(*) FROM locked) >= 0
            AND t.post_id = ${post} AND t.target_uid = r.target_uid AND t.claimed_by = r.token
            AND (t.state = 'sending' OR (${syndicated} AND t.state = 'unknown'))
          RETURNING t.target_uid, t.state, t.last_error
       ), attempt AS (
         UPDATE syndication_attempts AS a
            SET outcome = CASE r.kind WHEN 'held' THEN 'failed' ELSE r.kind END,
                url = CASE WHEN ${syndicated} THEN r.url ELSE a.url END,
                error = CASE WHEN ${syndicated} THEN a.error ELSE r.error END,
                finished_at = ${at}
           FROM outcome AS r
          WHERE a.id = r.attempt_id
       ), marked AS (
         UPDATE syndication_targets SET written_back = true
          WHERE post_id = ${post} AND target_uid = ANY(${$(2)}::text[]) AND state = 'syndicated'
       )`;
    },
    returning: `(SELECT COALESCE(json_agg(json_build_object('target_uid', target_uid, 'state', state,
       'last_error', last_error)), '[]'::json) FROM recorded)`,
  };
}

/** What the statement's `returning` read, by uid. */
export function recordedOutcomes(value: unknown): Map<string, RecordedOutcome> {
  const rows = jsonValue<RecordedOutcome[]>(value);
  return new Map((rows ?? []).map((row) => [row.target_uid, row]));
}
