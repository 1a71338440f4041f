// The copies of posts as a visitor of the site may know them (decision 0039): read-only queries
// over the ledger for the public `copies` routes, which let a site possekit does not write link to
// its copies. Only what a visitor could see anyway is read: copies that exist (sent, not deleted by
// a follow-up), of posts that are published and not deleted, on targets whose copies are public.
// Never an error text, an attempt, a draft, a pending or failed send, or a private post.
import type { Queryable } from "../../contract/database.ts";

/** A copy of a post on one target, as the public routes show it. */
export interface PublicCopy {
  /** The target's uid (what posts name in mp-syndicate-to). */
  target: string;
  /** The target's name, e.g. `@me@mastodon.social`. */
  name: string;
  /** The copy's URL on the target. */
  url: string;
  /** `syndicated`: as sent; `updated`: changed since to follow an edit of the post. */
  state: "syndicated" | "updated";
  /** When the copy was made. */
  time: Date;
}

/** A target whose copies may be shown: its uid and the name shown with them. */
export interface ShownTarget {
  uid: string;
  name: string;
}

// Posts a visitor may see: published, not deleted, not Micropub `visibility: private`. A JF2 value
// may be a string or, from an mf2 source, a one-element array.
const VISIBILITY = `COALESCE(p.properties->>'visibility', p.properties#>>'{visibility,0}')`;
const VISIBLE_POST = `p.status = 'published' AND p.deleted_at IS NULL
  AND ${VISIBILITY} IS DISTINCT FROM 'private'`;

// A send's row holds its copy while `syndicated` with a URL: a delete follow-up that went through
// makes it pending again without one (ledger/follow-ups.ts).
const COPY_COLUMNS = `c.target_uid, c.url,
  CASE WHEN EXISTS (SELECT 1 FROM syndication_operations o
                     WHERE o.post_id = c.post_id AND o.target_uid = c.target_uid
                       AND o.operation = 'update' AND o.state = 'done' AND o.url = c.url)
       THEN 'updated' ELSE 'syndicated' END AS state,
  COALESCE((SELECT max(a.finished_at) FROM syndication_attempts a
             WHERE a.post_id = c.post_id AND a.target_uid = c.target_uid AND a.operation = 'create'
               AND a.outcome = 'syndicated' AND a.url = c.url),
           c.updated_at) AS time`;

const IS_COPY = "c.state = 'syndicated' AND c.url IS NOT NULL AND c.target_uid = ANY($1::text[])";

interface CopyRow {
  target_uid: string;
  url: string;
  state: PublicCopy["state"];
  time: Date | string;
}

function toCopy(row: CopyRow, names: ReadonlyMap<string, string>): PublicCopy {
  return {
    target: row.target_uid,
    name: names.get(row.target_uid) ?? row.target_uid,
    url: row.url,
    state: row.state,
    time: new Date(row.time),
  };
}

/**
 * The URL as a site generator may write it against the URL possekit knows: exactly, else with or
 * without its trailing slash (Hugo's permalinks end in one, some feeds' entry links do not).
 */
export function urlVariants(url: string): string[] {
  const other = url.endsWith("/") ? url.replace(/\/+$/, "") : `${url}/`;
  return other === url || other === "" ? [url] : [url, other];
}

/**
 * The copies of the post at `url` (or at the same URL with or without its trailing slash), oldest
 * first; null when no post a visitor may see is there.
 */
export async function copiesOfPost(
  database: Queryable,
  url: string,
  targets: readonly ShownTarget[],
): Promise<{ url: string; copies: PublicCopy[] } | null> {
  const found = await database.query<{ id: string; url: string }>(
    `SELECT p.id::text AS id, p.url FROM post_source p
      WHERE p.url = ANY($1::text[]) AND ${VISIBLE_POST}
      ORDER BY (p.url = $2::text) DESC, p.id LIMIT 1`,
    [urlVariants(url), url],
  );
  const post = found.rows[0];
  if (!post) return null;
  const result = await database.query<CopyRow>(
    `SELECT ${COPY_COLUMNS} FROM syndication_targets c
      WHERE ${IS_COPY} AND c.post_id = $2::bigint
      ORDER BY c.created_at, c.target_uid`,
    [targets.map((target) => target.uid), post.id],
  );
  const names = new Map(targets.map((target) => [target.uid, target.name]));
  return { url: post.url, copies: result.rows.map((row) => toCopy(row, names)) };
}

/**
 * Every post's copies, keyed by the post's URL, newest post first; posts without a copy are left
 * out. Unlisted posts (`visibility: unlisted`) are left out too: a list of every post would show
 * them to anyone, while `copiesOfPost` answers only who knows the URL already.
 */
export async function everyPostsCopies(
  database: Queryable,
  targets: readonly ShownTarget[],
): Promise<Map<string, PublicCopy[]>> {
  const result = await database.query<CopyRow & { post_url: string }>(
    `SELECT p.url AS post_url, ${COPY_COLUMNS}
       FROM syndication_targets c JOIN post_source p ON p.id = c.post_id
      WHERE ${IS_COPY} AND ${VISIBLE_POST} AND ${VISIBILITY} IS DISTINCT FROM 'unlisted'
      ORDER BY p.published DESC, p.id DESC, c.created_at, c.target_uid`,
    [targets.map((target) => target.uid)],
  );
  const names = new Map(targets.map((target) => [target.uid, target.name]));
  const posts = new Map<string, PublicCopy[]>();
  for (const row of result.rows) {
    const copies = posts.get(row.post_url) ?? [];
    copies.push(toCopy(row, names));
    posts.set(row.post_url, copies);
  }
  return posts;
}
