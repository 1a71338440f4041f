// The feeds the owner added on the Feeds page (decision 0054), beside those of the configuration
// file: one row per feed with its options as the `feeds` option would hold them, read again by every
// instance at its turns (FeedSources.refresh), so that a feed added, changed or removed takes effect
// without a restart. A row is read through the same schema as the configuration file: a row that
// no longer passes it is left out and said in the log, never half-read.
import type { Database } from "../../contract/database.ts";
import { type FeedOptions, feedKeyOf, feedOptionsSchema } from "./feed-options.ts";

export interface PageFeed {
  key: string;
  options: FeedOptions;
  addedAt: Date;
}

interface PageFeedRow {
  key: string;
  options: unknown;
  added_at: Date | string;
}

const iso = (value: number) => new Date(value).toISOString();

export class PageFeedStore {
  constructor(private readonly database: Database) {}

  /** Every feed added on the page, oldest first; `invalid` gets each row the schema refuses. */
  async list(invalid?: (key: string, problem: string) => void): Promise<PageFeed[]> {
    const { rows } = await this.database.query<PageFeedRow>(
      "SELECT key, options, added_at FROM page_feeds ORDER BY added_at, key",
    );
    return rows.flatMap((row) => {
      const parsed = feedOptionsSchema.safeParse(row.options);
      if (!parsed.success) {
        invalid?.(row.key, parsed.error.issues.map((issue) => issue.message).join("; "));
        return [];
      }
      return [{ key: row.key, options: parsed.data, addedAt: new Date(row.added_at) }];
    });
  }

  async find(key: string): Promise<PageFeed | null> {
    return (await this.list()).find((feed) => feed.key === key) ?? null;
  }

  /**
   * Adds the feed; false when the page has it already. Its read state, if it was read before (a feed
   * removed and added again), starts over: the first read after adding knows what is there and sends
   * only its backfill, never what was published while it was away.
   */
  async add(options: FeedOptions, now: number): Promise<boolean> {
    const key = feedKeyOf(options.url);
    return this.database.transaction(async (tx) => {
      const { rows } = await tx.query<{ key: string }>(
        `INSERT INTO page_feeds (key, options, added_at, updated_at) VALUES ($1, $2::jsonb, $3, $3)
         ON CONFLICT (key) DO NOTHING RETURNING key`,
        [key, JSON.stringify(options), iso(now)],
      );
      if (rows.length === 0) return false;
      await tx.query(
        `UPDATE feed_sources SET baselined_at = NULL, etag = NULL, last_modified = NULL, failures = 0,
                last_error = NULL, error_kind = NULL, stopped_at = NULL, stopped_reason = NULL,
                next_fetch_at = $2::timestamptz
          WHERE key = $1`,
        [key, iso(now)],
      );
      return true;
    });
  }

  /** Changes a feed's options (never its URL: that is another feed); false when the page has no such feed. */
  async update(key: string, options: FeedOptions, now: number): Promise<boolean> {
    if (feedKeyOf(options.url) !== key)
      throw new Error("A feed's URL is changed by removing it and adding another");
    const { rows } = await this.database.query<{ key: string }>(
      "UPDATE page_feeds SET options = $2::jsonb, updated_at = $3 WHERE key = $1 RETURNING key",
      [key, JSON.stringify(options), iso(now)],
    );
    return rows.length > 0;
  }

  /** Removes the feed; false when the page had no such feed. Its entries stay, as posts from elsewhere. */
  async remove(key: string): Promise<boolean> {
    const { rows } = await this.database.query<{ key: string }>(
      "DELETE FROM page_feeds WHERE key = $1 RETURNING key",
      [key],
    );
    return rows.length > 0;
  }
}
