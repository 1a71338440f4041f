// The feeds the owner added on the Feeds page (decision 0054), beside those of the configuration
// file: one row per feed with its options as the `feeds` option would hold them, read again by every
// instance at its turns (FeedSources.refresh), so that a feed added, changed or removed takes effect
// without a restart. A row is read through the same schema as the configuration file: a row that
// no longer passes it is left out and said in the log, never half-read. A feed's Micropub token (its
// write-back, the `micropub` option) is sealed with the host's secret box in a column of its own,
// never in `options`, never shown again: the page says only when it was saved.
import type { Database } from "../../contract/database.ts";
import type { SecretSealer } from "../../contract/secret-sealer.ts";
import { type FeedOptions, feedKeyOf, feedOptionsSchema } from "./feed-options.ts";

export interface PageFeed {
  key: string;
  options: FeedOptions;
  addedAt: Date;
  /** When its Micropub token was saved; null without one. The token itself is never read here. */
  micropubTokenSetAt: Date | null;
}

/** A page feed as the feeds run it: its options and its Micropub token, opened. */
export interface PageFeedRun {
  options: FeedOptions;
  micropubToken: string | null;
}

/** What a save does with the feed's token: keep the saved one, forget it, or seal a new one. */
export type TokenChange = { keep: true } | { forget: true } | { replace: string };

interface PageFeedRow {
  key: string;
  options: unknown;
  added_at: Date | string;
  micropub_token_set_at: Date | string | null;
}

/** Binds a sealed token to its feed: copied into another feed's row, it does not open. */
export const pageFeedTokenData = (key: string) => `page-feed:${key}/micropubToken`;

const iso = (value: number) => new Date(value).toISOString();
const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class PageFeedStore {
  constructor(
    private readonly database: Database,
    /** The host's secret box; null where there is none (then no token can be saved). */
    private readonly sealer: () => SecretSealer | null = () => null,
  ) {}

  /** Whether a Micropub token can be saved here (a secret box to seal it with). */
  get sealsTokens(): boolean {
    return this.sealer() !== null;
  }

  /** Every feed added on the page, oldest first; `invalid` gets each row the schema refuses. */
  async list(invalid?: (key: string, problem: string) => void): Promise<PageFeed[]> {
    const { rows } = await this.database.query<PageFeedRow>(
      "SELECT key, options, added_at, micropub_token_set_at FROM page_feeds ORDER BY added_at, key",
    );
    return rows.flatMap((row) => {
      const parsed = feedOptionsSchema.safeParse(row.options);
      if (!parsed.success) {
        invalid?.(row.key, parsed.error.issues.map((issue) => issue.message).join("; "));
        return [];
      }
      const setAt = row.micropub_token_set_at;
      return [
        {
          key: row.key,
          options: parsed.data,
          addedAt: new Date(row.added_at),
          micropubTokenSetAt: setAt === null ? null : new Date(setAt),
        },
      ];
    });
  }

  /**
   * The feeds as they run: each with its Micropub token opened (null without one, or when it does
   * not open: the write-back then says that the token is missing). `invalid` as for list().
   */
  async running(invalid?: (key: string, problem: string) => void): Promise<PageFeedRun[]> {
    const feeds = await this.list(invalid);
    const { rows } = await this.database.query<{ key: string; micropub_token: string }>(
      "SELECT key, micropub_token FROM page_feeds WHERE micropub_token IS NOT NULL",
    );
    const sealed = new Map(rows.map((row) => [row.key, row.micropub_token]));
    const box = this.sealer();
    return feeds.map((feed) => {
      const token = sealed.get(feed.key);
      if (token === undefined || !box) return { options: feed.options, micropubToken: null };
      try {
        return { options: feed.options, micropubToken: box.open(token, pageFeedTokenData(feed.key)) };
      } catch (error) {
        invalid?.(feed.key, `its Micropub token does not open (${describe(error)}); save it again`);
        return { options: feed.options, micropubToken: null };
      }
    });
  }

  /** Seals every token not under the current key again under it (`possekit rekey`); returns how many. */
  async rekey(): Promise<number> {
    const box = this.sealer();
    if (!box) return 0;
    return this.database.transaction(async (tx) => {
      const { rows } = await tx.query<{ key: string; micropub_token: string }>(
        "SELECT key, micropub_token FROM page_feeds WHERE micropub_token IS NOT NULL FOR UPDATE",
      );
      let count = 0;
      for (const row of rows) {
        if (box.isCurrent(row.micropub_token)) continue;
        const data = pageFeedTokenData(row.key);
        await tx.query("UPDATE page_feeds SET micropub_token = $2 WHERE key = $1", [
          row.key,
          box.seal(box.open(row.micropub_token, data), data),
        ]);
        count++;
      }
      return count;
    });
  }

  /** The sealed token and when, as a save writes them; undefined to keep what is saved. */
  #sealed(
    key: string,
    change: TokenChange,
    now: number,
  ): { token: string | null; at: string | null } | undefined {
    if ("keep" in change) return undefined;
    if ("forget" in change) return { token: null, at: null };
    const box = this.sealer();
    if (!box) throw new Error("A feed's Micropub token needs the host's secret box, and there is none");
    return { token: box.seal(change.replace, pageFeedTokenData(key)), at: iso(now) };
  }

  async find(key: string): Promise<PageFeed | null> {
    return (await this.list()).find((feed) => feed.key === key) ?? null;
  }

  /**
   * Adds the feed; false when the page has it already. Its read state, if it was read before (a feed
   * removed and added again), starts over: the first read after adding knows what is there and sends
   * only its backfill, never what was published while it was away.
   */
  async add(options: FeedOptions, now: number, token: TokenChange = { forget: true }): Promise<boolean> {
    const key = feedKeyOf(options.url);
    const sealed = this.#sealed(key, token, now) ?? { token: null, at: null };
    return this.database.transaction(async (tx) => {
      const { rows } = await tx.query<{ key: string }>(
        `INSERT INTO page_feeds (key, options, added_at, updated_at, micropub_token, micropub_token_set_at)
         VALUES ($1, $2::jsonb, $3, $3, $4, $5)
         ON CONFLICT (key) DO NOTHING RETURNING key`,
        [key, JSON.stringify(options), iso(now), sealed.token, sealed.at],
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

  /**
   * Changes a feed's options (never its URL: that is another feed) and its token, in one statement;
   * false when the page has no such feed.
   */
  async update(
    key: string,
    options: FeedOptions,
    now: number,
    token: TokenChange = { keep: true },
  ): Promise<boolean> {
    if (feedKeyOf(options.url) !== key)
      throw new Error("A feed's URL is changed by removing it and adding another");
    const sealed = this.#sealed(key, token, now);
    const { rows } = sealed
      ? await this.database.query<{ key: string }>(
          `UPDATE page_feeds SET options = $2::jsonb, updated_at = $3, micropub_token = $4,
                  micropub_token_set_at = $5
            WHERE key = $1 RETURNING key`,
          [key, JSON.stringify(options), iso(now), sealed.token, sealed.at],
        )
      : await this.database.query<{ key: string }>(
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
