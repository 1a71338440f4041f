// What the feed source keeps in the database (migrations.ts): each feed's fetch state, its turn,
// what went wrong, and the entries it has seen with the post each one is. A feed's turn is a lease
// between instances, so when a read is due and how long a turn is held follow the one rule of
// src/contract/database-now.ts: the database's clock, or a test's clock when one is given. The
// moments a read records (fetched, succeeded) are the reader's own.
import type { Database, Queryable } from "../../contract/database.ts";
import { DATABASE_DECIDES, type DatabaseNow, sqlNow } from "../../contract/database-now.ts";

export interface FeedRow {
  key: string;
  url: string;
  etag: string | null;
  lastModified: string | null;
  nextFetchAt: Date | null;
  failures: number;
  lastFetchAt: Date | null;
  lastSuccessAt: Date | null;
  lastError: string | null;
  errorKind: "fetch" | "parse" | "held" | null;
  notes: string[];
  baselinedAt: Date | null;
  stoppedAt: Date | null;
  stoppedReason: string | null;
}

export interface KnownEntry {
  postId: string;
  entryId: string | null;
  url: string;
  contentHash: string;
  published: Date;
}

interface FeedDbRow {
  key: string;
  url: string;
  etag: string | null;
  last_modified: string | null;
  next_fetch_at: Date | string | null;
  failures: number;
  last_fetch_at: Date | string | null;
  last_success_at: Date | string | null;
  last_error: string | null;
  error_kind: FeedRow["errorKind"];
  notes: unknown;
  baselined_at: Date | string | null;
  stopped_at: Date | string | null;
  stopped_reason: string | null;
}

const date = (value: Date | string | null): Date | null => (value === null ? null : new Date(value));
const iso = (value: Date | number | null) => (value === null ? null : new Date(value).toISOString());

function toFeed(row: FeedDbRow): FeedRow {
  return {
    key: row.key,
    url: row.url,
    etag: row.etag,
    lastModified: row.last_modified,
    nextFetchAt: date(row.next_fetch_at),
    failures: row.failures,
    lastFetchAt: date(row.last_fetch_at),
    lastSuccessAt: date(row.last_success_at),
    lastError: row.last_error,
    errorKind: row.error_kind,
    notes: Array.isArray(row.notes)
      ? row.notes.filter((note): note is string => typeof note === "string")
      : [],
    baselinedAt: date(row.baselined_at),
    stoppedAt: date(row.stopped_at),
    stoppedReason: row.stopped_reason,
  };
}

/** What a finished fetch leaves: every field is written (null clears). */
export interface FetchOutcome {
  url: string;
  etag: string | null;
  lastModified: string | null;
  nextFetchAt: number | null;
  failures: number;
  fetchedAt: number;
  succeeded: boolean;
  error: { kind: "fetch" | "parse" | "held"; message: string } | null;
  /** undefined: the notes of the last read are kept (nothing was read this time). */
  notes?: string[];
  baselined?: boolean;
  stopped?: string;
}

/** Notes shown per feed: enough to see what is wrong, never a page of them. */
const MAX_NOTES = 20;

export class FeedStore {
  constructor(
    private readonly database: Database,
    /** "Now" of the turn's statements (src/contract/database-now.ts). */
    private readonly at: DatabaseNow = DATABASE_DECIDES,
  ) {}

  /** Adds the feed if it is new (due at once); its row either way. */
  async ensure(key: string): Promise<FeedRow> {
    await this.database.query(
      `INSERT INTO feed_sources (key, url, next_fetch_at) VALUES ($1, $1, ${sqlNow(2)})
       ON CONFLICT (key) DO NOTHING`,
      [key, this.at()],
    );
    const feed = await this.find(key);
    if (!feed) throw new Error(`The feed ${key} could not be stored`);
    return feed;
  }

  async find(key: string): Promise<FeedRow | null> {
    const { rows } = await this.database.query<FeedDbRow>("SELECT * FROM feed_sources WHERE key = $1", [key]);
    return rows[0] ? toFeed(rows[0]) : null;
  }

  /**
   * Takes the feed's turn: when it is due now (or whatever its moment when `evenIfNotDue`),
   * holding it for `holdMs`, so that no other instance fetches it meanwhile. The row (its
   * nextFetchAt: when the turn lapses), or null when not due, taken by another instance, or stopped.
   */
  async takeTurn(key: string, holdMs: number, evenIfNotDue: boolean): Promise<FeedRow | null> {
    const { rows } = await this.database.query<FeedDbRow>(
      `UPDATE feed_sources SET next_fetch_at = ${sqlNow(2)} + $3::float8 * interval '1 millisecond'
        WHERE key = $1 AND stopped_at IS NULL AND ($4::boolean OR next_fetch_at <= ${sqlNow(2)})
        RETURNING *`,
      [key, this.at(), holdMs, evenIfNotDue],
    );
    return rows[0] ? toFeed(rows[0]) : null;
  }

  /**
   * Records a read, `readerNow` being the reader's clock as it records. The next read comes as long
   * after now as nextFetchAt is after `readerNow`: the moment the reader chose, on the database's
   * clock (or the test's). The moment it is due, or null when none is (stopped).
   */
  async finishFetch(key: string, outcome: FetchOutcome, readerNow: number): Promise<Date | null> {
    const { rows } = await this.database.query<{ next_fetch_at: Date | string | null }>(
      `UPDATE feed_sources
          SET url = $2, etag = $3, last_modified = $4,
              next_fetch_at = ${sqlNow(14)} + ($5::timestamptz - $15::timestamptz), failures = $6,
              last_fetch_at = $7::timestamptz,
              last_success_at = CASE WHEN $8::boolean THEN $7::timestamptz ELSE last_success_at END,
              last_error = $9, error_kind = $10,
              notes = COALESCE($11::jsonb, notes),
              baselined_at = CASE WHEN $12::boolean AND baselined_at IS NULL THEN $7::timestamptz ELSE baselined_at END,
              stopped_at = CASE WHEN $13::text IS NULL THEN stopped_at ELSE $7::timestamptz END,
              stopped_reason = COALESCE($13::text, stopped_reason)
        WHERE key = $1
        RETURNING next_fetch_at`,
      [
        key,
        outcome.url,
        outcome.etag,
        outcome.lastModified,
        iso(outcome.nextFetchAt),
        outcome.failures,
        iso(outcome.fetchedAt),
        outcome.succeeded,
        outcome.error?.message ?? null,
        outcome.error?.kind ?? null,
        outcome.notes ? JSON.stringify(outcome.notes.slice(0, MAX_NOTES)) : null,
        outcome.baselined ?? false,
        outcome.stopped ?? null,
        this.at(),
        iso(readerNow),
      ],
    );
    return date(rows[0]?.next_fetch_at ?? null);
  }

  /**
   * The next read records every entry as known and sends nothing (the user accepted a held change).
   * Only while the feed is held: a feed whose site put its ids back meanwhile keeps sending its new
   * entries. False when it was not held.
   */
  async rebaseline(key: string): Promise<boolean> {
    const { rows } = await this.database.query<{ key: string }>(
      `UPDATE feed_sources SET baselined_at = NULL, last_error = NULL, error_kind = NULL, etag = NULL,
              last_modified = NULL, next_fetch_at = ${sqlNow(2)}
        WHERE key = $1 AND stopped_at IS NULL AND error_kind = 'held'
        RETURNING key`,
      [key, this.at()],
    );
    return rows.length > 0;
  }

  /** The known entries any of these ids or URLs name. */
  async matching(key: string, ids: readonly string[], urls: readonly string[]): Promise<KnownEntry[]> {
    const { rows } = await this.database.query<{
      post_id: string;
      entry_id: string | null;
      url: string;
      content_hash: string;
      published: Date | string;
    }>(
      `SELECT post_id::text AS post_id, entry_id, url, content_hash, published FROM feed_entries
        WHERE feed_key = $1 AND (entry_id = ANY($2::text[]) OR url = ANY($3::text[]))`,
      [key, ids, urls],
    );
    return rows.map((row) => ({
      postId: row.post_id,
      entryId: row.entry_id,
      url: row.url,
      contentHash: row.content_hash,
      published: new Date(row.published),
    }));
  }

  /** The date of the newest entry the feed has shown, or null for none yet. */
  async newestPublished(key: string): Promise<Date | null> {
    const { rows } = await this.database.query<{ newest: Date | string | null }>(
      "SELECT max(published) AS newest FROM feed_entries WHERE feed_key = $1",
      [key],
    );
    return date(rows[0]?.newest ?? null);
  }

  async countEntries(key: string): Promise<number> {
    const { rows } = await this.database.query<{ count: number | string }>(
      "SELECT count(*) AS count FROM feed_entries WHERE feed_key = $1",
      [key],
    );
    return Number(rows[0]?.count ?? 0);
  }

  /** Keeps what an entry is now (a new entry, or a known one whose id, URL or content changed). */
  async keepEntry(
    key: string,
    entry: KnownEntry,
    firstSeen: number,
    tx: Queryable = this.database,
  ): Promise<void> {
    await tx.query(
      `INSERT INTO feed_entries (feed_key, post_id, entry_id, url, content_hash, published, first_seen)
       VALUES ($1, $2::bigint, $3, $4, $5, $6::timestamptz, $7::timestamptz)
       ON CONFLICT (feed_key, post_id) DO UPDATE
         SET entry_id = COALESCE(EXCLUDED.entry_id, feed_entries.entry_id), url = EXCLUDED.url,
             content_hash = EXCLUDED.content_hash`,
      [
        key,
        entry.postId,
        entry.entryId,
        entry.url,
        entry.contentHash,
        entry.published.toISOString(),
        iso(firstSeen),
      ],
    );
  }
}
