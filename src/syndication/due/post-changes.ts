// Posts that changed since their copies were made, noted by a trigger on `posts` (migration 013),
// so that a change is followed even when nobody is told of it in this process. A run takes them
// oldest first, works out what each copy needs, and only then forgets the change, unless it was
// noted again meanwhile.
import type { Database } from "../../contract/database.ts";

export interface NoticedChange {
  postId: string;
  /** As the database wrote it, to the microsecond. */
  noticedAt: string;
}

export class PostChanges {
  constructor(private readonly database: Database) {}

  async noticed(limit: number): Promise<NoticedChange[]> {
    const result = await this.database.query<{ post_id: string; noticed_at: string }>(
      `SELECT post_id::text AS post_id, noticed_at::text AS noticed_at FROM syndication_post_changes
        ORDER BY noticed_at LIMIT $1::int`,
      [limit],
    );
    return result.rows.map((row) => ({ postId: row.post_id, noticedAt: row.noticed_at }));
  }

  /** The change was followed; one noted again since is kept for the next pass. */
  async followed(change: NoticedChange): Promise<void> {
    await this.database.query(
      "DELETE FROM syndication_post_changes WHERE post_id = $1::bigint AND noticed_at = $2::timestamptz",
      [change.postId, change.noticedAt],
    );
  }
}
