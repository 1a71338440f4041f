// Finding posts for the Syndicate page: by state (needing the user, waiting for a run, awaiting, any
// post with a target), by target, by a run that touched them, by where they come from (the site's
// own, a feed, a remote Micropub server), and by words of the title or the URL,
// oldest first. One query for the page's ids and one for the count; the rows are read afterwards.
import type { Queryable } from "../../contract/database.ts";
import { publicPostSql } from "../../contract/visibility.ts";

/**
 * `awaiting`: a configured target still lacks the post (the page's default list). `attention`: some
 * target failed, was refused or has an unknown outcome, or the page never went live: nothing moves
 * without the user or a later try. A target no longer configured neither keeps a post awaiting nor
 * needs attention: the post's row shows it as such. `waiting`: awaiting, and nothing is wrong
 * yet (not tried, being sent, or waiting for the page to be live). `all`: every post with a target;
 * of one source from elsewhere (`origin`), every post it knows: a feed's entries that its first read
 * only recorded name no target, and are listed to be sent by hand.
 */
export type PostState = "awaiting" | "attention" | "waiting" | "all";

export interface PostFilter {
  state: PostState;
  /** A target uid the post names or was sent to. */
  target?: string;
  /** A run whose attempts touched the post. */
  runId?: string;
  /** Words of the title, summary or content, or (part of) the post's URL. */
  search?: string;
  /** Where the post comes from: an origin as recorded (`feed:blog`), or OWN_ORIGIN for the site's own. */
  origin?: string;
  /** The configured targets: only they keep a post awaiting. */
  configuredUids: readonly string[];
}

/** The origin filter's value for the site's own posts (an origin always has a `kind:` prefix). */
export const OWN_ORIGIN = "own";

export interface PostPage {
  ids: string[];
  total: number;
}

// An unlisted or private post is never sent: it does not wait for anything.
const awaiting = (configured: string) =>
  `p.status = 'published' AND ${publicPostSql("p")} AND p.properties->'mp-syndicate-to' ?| ${configured}::text[]`;

// Needs the user or a later try: a failed or unknown ledger row, or a page that never went live.
const ATTENTION = `(
  EXISTS (SELECT 1 FROM syndication_targets t WHERE t.post_id = p.id AND t.state IN ('failed', 'unknown'))
  OR EXISTS (SELECT 1 FROM syndication_live_checks c WHERE c.post_id = p.id AND c.gave_up)
)`;

const HAS_TARGET = `(
  jsonb_array_length(p.properties->'mp-syndicate-to') > 0
  OR EXISTS (SELECT 1 FROM syndication_targets t WHERE t.post_id = p.id)
)`;

// The URL as people write it: no scheme, no www., no query or fragment, no trailing slash.
const normalizedUrl = (column: string) =>
  `regexp_replace(regexp_replace(regexp_replace(lower(${column}), '^[a-z]+://(www\\.)?', ''), '[?#].*$', ''), '/+$', '')`;

const TEXT = `lower(concat_ws(' ', p.properties->>'name', p.properties#>>'{name,0}',
  p.properties->>'summary', p.properties#>>'{summary,0}',
  CASE WHEN jsonb_typeof(p.properties->'content') = 'string' THEN p.properties->>'content' END,
  p.properties#>>'{content,text}', p.properties#>>'{content,html}'))`;

/** What someone typed as an address, reduced the way the query reduces every post's URL. */
export function normalizeSearchUrl(input: string): string {
  return input
    .trim()
    .toLowerCase()
    .replace(/^([a-z]+:\/\/)?(www\.)?/, "")
    .replace(/[?#].*$/, "")
    .replace(/\/+$/, "");
}

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export async function findPosts(
  database: Queryable,
  filter: PostFilter,
  page: { offset: number; limit: number },
): Promise<PostPage> {
  const params: unknown[] = [];
  // Each value becomes a numbered parameter only when the query uses it.
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const where = ["p.deleted_at IS NULL", "p.status = 'published'"];
  if (filter.state === "awaiting") where.push(awaiting(param(filter.configuredUids)));
  else if (filter.state === "attention") where.push(`${HAS_TARGET} AND ${ATTENTION}`);
  else if (filter.state === "waiting")
    where.push(`${awaiting(param(filter.configuredUids))} AND NOT ${ATTENTION}`);
  else if (!filter.origin || filter.origin === OWN_ORIGIN) where.push(HAS_TARGET);
  if (filter.target) {
    const target = param(filter.target);
    where.push(`(p.properties->'mp-syndicate-to' ? ${target}
      OR EXISTS (SELECT 1 FROM syndication_targets t WHERE t.post_id = p.id AND t.target_uid = ${target}))`);
  }
  if (filter.runId) {
    where.push(
      `EXISTS (SELECT 1 FROM syndication_attempts a WHERE a.post_id = p.id AND a.run_id = ${param(filter.runId)}::bigint)`,
    );
  }
  if (filter.origin === OWN_ORIGIN) where.push("p.origin IS NULL");
  else if (filter.origin) where.push(`p.origin = ${param(filter.origin)}`);
  const search = filter.search?.trim();
  if (search) {
    const words = param(likePattern(search.toLowerCase()));
    const url = param(likePattern(normalizeSearchUrl(search) || search.toLowerCase()));
    where.push(`(${TEXT} LIKE ${words} OR ${normalizedUrl("p.url")} LIKE ${url})`);
  }
  const condition = where.join(" AND ");
  const countParams = [...params];
  params.push(page.offset, page.limit);
  const [list, count] = await Promise.all([
    database.query<{ id: string }>(
      `SELECT p.id::text AS id FROM post_source p WHERE ${condition}
        ORDER BY p.published, p.id OFFSET $${params.length - 1} LIMIT $${params.length}`,
      params,
    ),
    database.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM post_source p WHERE ${condition}`,
      countParams,
    ),
  ]);
  return { ids: list.rows.map((row) => row.id), total: count.rows[0]?.count ?? 0 };
}

/** The origins of the posts from elsewhere, for the page's filter (the partial index posts_by_origin). */
export async function knownOrigins(database: Queryable): Promise<string[]> {
  const result = await database.query<{ origin: string }>(
    "SELECT DISTINCT p.origin FROM post_source p WHERE p.origin IS NOT NULL ORDER BY p.origin",
  );
  return result.rows.map((row) => row.origin);
}
