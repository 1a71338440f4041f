// What a remote-Micropub source keeps in the database (migrations.ts): its turn to poll and its last
// error, shared by every instance on the database, and the links each of its posts agreed on with
// the remote. Its turn is a lease between instances, so "now" is the one rule of
// src/contract/database-now.ts: the database's clock, or a test's clock when one is given.
import type { Database } from "../../contract/database.ts";
import { DATABASE_DECIDES, type DatabaseNow, sqlNow } from "../../contract/database-now.ts";
import { POST_SOURCE_RELATION } from "../../contract/post-source.ts";
import type { LinkState } from "./link-merge.ts";
import type { MicropubSourceFailure } from "./micropub-source-error.ts";

export interface MicropubSourceStatus {
  nextPollAt: Date;
  lastPollAt: Date | null;
  lastSuccessAt: Date | null;
  /** What went wrong at the last poll or write-back; null once one succeeds. */
  error: { kind: MicropubSourceFailure; message: string } | null;
  /** Polls that failed in a row (the backoff of an unavailable remote). */
  failures: number;
}

interface StatusRow {
  next_poll_at: Date;
  last_poll_at: Date | null;
  last_success_at: Date | null;
  error_kind: MicropubSourceFailure | null;
  last_error: string | null;
  failures: number;
}

interface LinksRow {
  syndication: unknown;
  syndicate_to: unknown;
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];

export class MicropubSourceState {
  constructor(
    private readonly database: Database,
    readonly origin: string,
    /**
     * One way (a feed's site): only `syndication` is carried, and a post never agreed on whose row
     * holds a link is owed it too (a feed's posts are recorded without asking the server).
     */
    private readonly options: { oneWay: boolean } = { oneWay: false },
    /** "Now" of the turn's statements (src/contract/database-now.ts). */
    private readonly at: DatabaseNow = DATABASE_DECIDES,
  ) {}

  /**
   * Takes this poll's turn if it is due now, holding it for `holdMs`: the moment the turn is held
   * until, or null when it is not due or another instance holds it.
   */
  async takeTurn(holdMs: number): Promise<Date | null> {
    // A source seen for the first time is due at once.
    await this.database.query(
      `INSERT INTO micropub_sources (origin, next_poll_at) VALUES ($1, ${sqlNow(2)}) ON CONFLICT (origin) DO NOTHING`,
      [this.origin, this.at()],
    );
    const { rows } = await this.database.query<{ next_poll_at: Date | string }>(
      `UPDATE micropub_sources
          SET next_poll_at = ${sqlNow(2)} + $3::float8 * interval '1 millisecond', last_poll_at = ${sqlNow(2)}
        WHERE origin = $1 AND next_poll_at <= ${sqlNow(2)}
        RETURNING next_poll_at`,
      [this.origin, this.at(), holdMs],
    );
    return rows[0] ? new Date(rows[0].next_poll_at) : null;
  }

  /**
   * Ends a poll: the next one `nextInMs` after this turn began (the moment takeTurn recorded), and
   * its error (none: the remote answered). The next poll's moment, or null when the source has no
   * row (takeTurn writes it).
   */
  async finishPoll(
    nextInMs: number,
    error?: { kind: MicropubSourceFailure; message: string },
  ): Promise<Date | null> {
    // Counted from the turn's start, as its hold is: from the poll's end, a slow poll (or a test's
    // clock moved on meanwhile) would push the next turn out by the poll's length, a moment due
    // meanwhile would be skipped, and the remote polled less often than its interval says.
    const { rows } = await this.database.query<{ next_poll_at: Date | string }>(
      `UPDATE micropub_sources
          SET next_poll_at = COALESCE(last_poll_at, ${sqlNow(4)}) + $2::float8 * interval '1 millisecond',
              last_success_at = CASE WHEN $3::text IS NULL THEN ${sqlNow(4)} ELSE last_success_at END,
              error_kind = $3, last_error = $5,
              failures = CASE WHEN $3::text IS NULL THEN 0 ELSE failures + 1 END
        WHERE origin = $1
        RETURNING next_poll_at`,
      [this.origin, nextInMs, error?.kind ?? null, this.at(), error?.message ?? null],
    );
    return rows[0] ? new Date(rows[0].next_poll_at) : null;
  }

  /** Records an error met outside a poll (a write-back), or clears one after a success. */
  async noteError(error: { kind: MicropubSourceFailure; message: string } | null): Promise<void> {
    await this.database.query(
      "UPDATE micropub_sources SET error_kind = $2, last_error = $3 WHERE origin = $1",
      [this.origin, error?.kind ?? null, error?.message ?? null],
    );
  }

  async status(): Promise<MicropubSourceStatus | null> {
    const { rows } = await this.database.query<StatusRow>(
      `SELECT next_poll_at, last_poll_at, last_success_at, error_kind, last_error, failures
         FROM micropub_sources WHERE origin = $1`,
      [this.origin],
    );
    const row = rows[0];
    if (!row) return null;
    const date = (value: Date | null) => (value === null ? null : new Date(value));
    return {
      nextPollAt: new Date(row.next_poll_at),
      lastPollAt: date(row.last_poll_at),
      lastSuccessAt: date(row.last_success_at),
      error: row.error_kind ? { kind: row.error_kind, message: row.last_error ?? "" } : null,
      failures: Number(row.failures),
    };
  }

  /** The links a post agreed on with the remote, if it ever did. */
  async agreed(url: string): Promise<LinkState | undefined> {
    const { rows } = await this.database.query<LinksRow>(
      "SELECT syndication, syndicate_to FROM micropub_source_links WHERE origin = $1 AND url = $2",
      [this.origin, url],
    );
    const row = rows[0];
    return row
      ? { syndication: strings(row.syndication), syndicateTo: strings(row.syndicate_to) }
      : undefined;
  }

  /** Notes that the remote and the row both hold `links` now. */
  async agree(url: string, links: LinkState): Promise<void> {
    await this.database.query(
      `INSERT INTO micropub_source_links (origin, url, syndication, syndicate_to)
       VALUES ($1, $2, $3::jsonb, $4::jsonb)
       ON CONFLICT (origin, url) DO UPDATE SET syndication = EXCLUDED.syndication, syndicate_to = EXCLUDED.syndicate_to`,
      [this.origin, url, JSON.stringify(links.syndication), JSON.stringify(links.syndicateTo)],
    );
  }

  /**
   * The posts whose row no longer holds what it agreed on with the remote: a copy's link added or a
   * target done since, whose write-back has not reached the remote (it was down, or the process
   * stopped in between). Read on every turn, whether or not a listing reaches the post. One way,
   * only a link the row holds beyond the agreed ones counts, agreed on or not.
   */
  async drifted(): Promise<string[]> {
    const { rows } = await this.database.query<{ url: string }>(
      this.options.oneWay
        ? `SELECT p.url FROM ${POST_SOURCE_RELATION} p
             LEFT JOIN micropub_source_links l ON l.origin = $1 AND l.url = p.url
            WHERE p.origin = $1 AND p.deleted_at IS NULL
              AND NOT (COALESCE(l.syndication, '[]'::jsonb) @> COALESCE(p.properties->'syndication', '[]'::jsonb))
            ORDER BY p.published DESC`
        : `SELECT p.url FROM ${POST_SOURCE_RELATION} p
             JOIN micropub_source_links l ON l.origin = $1 AND l.url = p.url
            WHERE p.origin = $1 AND p.deleted_at IS NULL
              AND NOT (l.syndication @> COALESCE(p.properties->'syndication', '[]'::jsonb)
                       AND COALESCE(p.properties->'syndication', '[]'::jsonb) @> l.syndication
                       AND l.syndicate_to @> COALESCE(p.properties->'mp-syndicate-to', '[]'::jsonb)
                       AND COALESCE(p.properties->'mp-syndicate-to', '[]'::jsonb) @> l.syndicate_to)
            ORDER BY p.published DESC`,
      [this.origin],
    );
    return rows.map((row) => row.url);
  }
}
