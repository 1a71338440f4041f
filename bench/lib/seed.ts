// Bulk-inserts posts straight into the real posts table with generate_series: a million posts in
// seconds, where a million post-service creates would take an hour. The rows have the shape the
// post service writes (JF2 properties with type, url, published, post-status).
import type { Database } from "../../src/contract/database.ts";

export interface SeedOptions {
  /** How many posts to add, numbered from `first` (default 1). */
  count: number;
  first?: number;
  /** The uids every awaiting post names in mp-syndicate-to. */
  targets: readonly string[];
  /**
   * Every `awaitEvery`-th post still awaits syndication; the others were syndicated long ago
   * (a syndication URL, no target left). 1: every post awaits.
   */
  awaitEvery: number;
  /** Also scatter drafts (every 7th) and deleted posts (every 11th), as a real site has. */
  mixed?: boolean;
}

// Inserted a slice at a time so that one statement never holds a million rows in memory.
const SLICE = 100_000;

export function postUrl(n: number): string {
  return `https://example.org/notes/bench-${n}/`;
}

export async function seedPosts(database: Database, options: SeedOptions): Promise<void> {
  const first = options.first ?? 1;
  const last = first + options.count - 1;
  for (let from = first; from <= last; from += SLICE) {
    const to = Math.min(last, from + SLICE - 1);
    await database.query(
      `INSERT INTO posts (url, slug, type, properties, status, published, deleted_at)
       SELECT 'https://example.org/notes/bench-' || n || '/', 'bench-' || n, 'entry',
              jsonb_build_object(
                'type', 'entry',
                'content', 'Bench post number ' || n || ', with a sentence or two of text as notes have.',
                'published', to_char((timestamptz '2020-01-01' + n * interval '1 minute') AT TIME ZONE 'UTC',
                                     'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                'post-status', CASE WHEN $5::boolean AND n % 7 = 0 THEN 'draft' ELSE 'published' END,
                'url', 'https://example.org/notes/bench-' || n || '/'
              ) || CASE WHEN n % $3::int = 0 THEN jsonb_build_object('mp-syndicate-to', $4::jsonb)
                        ELSE jsonb_build_object('syndication',
                               jsonb_build_array('https://social.example/@me/' || n)) END,
              CASE WHEN $5::boolean AND n % 7 = 0 THEN 'draft' ELSE 'published' END,
              timestamptz '2020-01-01' + n * interval '1 minute',
              CASE WHEN $5::boolean AND n % 11 = 0 THEN now() END
         FROM generate_series($1::int, $2::int) AS n`,
      [from, to, options.awaitEvery, JSON.stringify(options.targets), options.mixed ?? false],
    );
  }
}

/** How many seeded posts await syndication (what the batch will walk through). */
export function awaitingAmong(options: SeedOptions): number {
  const first = options.first ?? 1;
  let awaiting = 0;
  for (let n = first; n < first + options.count; n += 1) {
    if (n % options.awaitEvery !== 0) continue;
    if (options.mixed && (n % 7 === 0 || n % 11 === 0)) continue;
    awaiting += 1;
  }
  return awaiting;
}
