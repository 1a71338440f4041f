// The history of runs, batch and single, for the admin page: who started them, when, and how
// they went.
import type { Queryable } from "../../contract/database.ts";
import { DATABASE_DECIDES, type DatabaseNow, sqlNow } from "../database-now.ts";
import type { RunRecord, RunStatus, RunSummary, Trigger } from "../types.ts";

interface RunRow {
  id: string;
  kind: "batch" | "single";
  trigger: Trigger;
  started_at: Date;
  finished_at: Date | null;
  status: RunStatus;
  posts: number;
  syndicated: number;
  partial: number;
  failed: number;
  followed: number;
  /** Null for runs recorded before the column existed. */
  skipped: number | null;
  holder: string | null;
}

export class RunLog {
  constructor(
    private readonly database: Queryable,
    private readonly now: DatabaseNow = DATABASE_DECIDES,
  ) {}

  /** Records the start of a run; `on` lets the lease create it inside its own transaction. */
  async start(
    kind: "batch" | "single",
    trigger: Trigger,
    holder: string,
    on: Queryable = this.database,
  ): Promise<string> {
    const result = await on.query<{ id: string }>(
      `INSERT INTO syndication_runs (kind, trigger, holder, started_at) VALUES ($1, $2, $3, ${sqlNow(4)})
       RETURNING id::text AS id`,
      [kind, trigger, holder, this.now()],
    );
    const row = result.rows[0];
    if (!row) throw new Error("Recording the syndication run returned no id");
    return row.id;
  }

  async finish(runId: string, status: Exclude<RunStatus, "running">, summary: RunSummary): Promise<void> {
    await this.database.query(
      `UPDATE syndication_runs
          SET finished_at = ${sqlNow(9)}, status = $2, posts = $3, syndicated = $4, partial = $5, failed = $6,
              followed = $7, skipped = $8
        WHERE id = $1::bigint`,
      [
        runId,
        status,
        summary.posts,
        summary.syndicated,
        summary.partial,
        summary.failed,
        summary.followed ?? 0,
        summary.skipped,
        this.now(),
      ],
    );
  }

  /**
   * Runs still marked running whose process is gone: every other batch (the caller holds the
   * lease, so none can be alive) and single runs older than `singleStaleMs`.
   */
  async abandonDead(currentBatchId: string, singleStaleMs: number): Promise<number> {
    const result = await this.database.query(
      `UPDATE syndication_runs SET status = 'abandoned', finished_at = ${sqlNow(3)}
        WHERE status = 'running' AND id <> $1::bigint
          AND (kind = 'batch' OR started_at < ${sqlNow(3)} - $2::int * interval '1 millisecond')`,
      [currentBatchId, singleStaleMs, this.now()],
    );
    return result.rowCount;
  }

  /** Newest first. */
  async recent(limit = 20): Promise<RunRecord[]> {
    const result = await this.database.query<RunRow>(
      `SELECT id::text AS id, kind, trigger, started_at, finished_at, status, posts, syndicated, partial,
              failed, followed, skipped, holder
         FROM syndication_runs ORDER BY started_at DESC, id DESC LIMIT $1::int`,
      [limit],
    );
    return result.rows.map((row) => ({
      id: row.id,
      kind: row.kind,
      trigger: row.trigger,
      startedAt: row.started_at,
      finishedAt: row.finished_at,
      status: row.status,
      holder: row.holder,
      summary: {
        posts: row.posts,
        syndicated: row.syndicated,
        partial: row.partial,
        failed: row.failed,
        // Runs recorded before the column: a batch only takes posts still lacking a target, so the
        // posts it neither sent nor failed were skipped (waiting for their next try, or refused).
        skipped:
          row.skipped ?? Math.max(0, row.posts - row.syndicated - row.partial - row.failed - row.followed),
        ...(row.followed > 0 ? { followed: row.followed } : {}),
      },
    }));
  }
}
