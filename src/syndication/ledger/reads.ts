// What the page and the runs read of the ledger: the rows of a post or of many, the follow-ups, the
// attempts history, and the counts of posts that need the user.
import type { Database } from "../../contract/database.ts";
import { DATABASE_DECIDES, type DatabaseNow, sqlNow } from "../database-now.ts";
import type { Attempt, LedgerEntry, OperationEntry } from "../types.ts";
import {
  ATTEMPT_COLUMNS,
  type AttemptRow,
  OPERATION_COLUMNS,
  type OperationRow,
  REMOVED_AT_COLUMN,
  TARGET_COLUMNS,
  type TargetRow,
  toAttempt,
  toEntry,
  toOperation,
} from "./rows.ts";

export class LedgerReads {
  constructor(
    protected readonly database: Database,
    /** "Now" in the ledger's statements: the database's, unless a test gives its clock. */
    protected readonly now: DatabaseNow = DATABASE_DECIDES,
  ) {}

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

  /** The post's rows, in the order they were created, each with when the user removed its copy. */
  async entriesForPost(postId: string): Promise<LedgerEntry[]> {
    const result = await this.database.query<TargetRow>(
      `SELECT ${TARGET_COLUMNS}, ${REMOVED_AT_COLUMN} FROM syndication_targets WHERE post_id = $1::bigint
        ORDER BY created_at, target_uid`,
      [postId],
    );
    return result.rows.map(toEntry);
  }

  /**
   * The rows of many posts in one query (for the page listing), keyed by post id, each with when the
   * user removed its copy: the list says "removed by you" as the results page does.
   */
  async summaryForPosts(postIds: readonly string[]): Promise<Map<string, LedgerEntry[]>> {
    const summary = new Map<string, LedgerEntry[]>();
    if (postIds.length === 0) return summary;
    const result = await this.database.query<TargetRow>(
      `SELECT ${TARGET_COLUMNS}, ${REMOVED_AT_COLUMN} FROM syndication_targets WHERE post_id = ANY($1::bigint[])
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
          AND (next_attempt_at IS NULL OR next_attempt_at <= ${sqlNow(2)})
        GROUP BY post_id ORDER BY min(updated_at) LIMIT $1::int`,
      [limit, this.now()],
    );
    return result.rows.map((row) => row.post_id);
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
