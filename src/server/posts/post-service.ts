import type { Database, Queryable } from "../../contract/database.ts";
import { Listeners } from "../../contract/listeners.ts";
import type { AlongsideStatement, UpdatedAlongside } from "../../contract/post-source.ts";
import {
  type AwaitingCursor,
  type Post,
  type PostChange,
  PostNotFoundError,
  type PostUpdate,
} from "../../contract/posts.ts";
import type { Publication } from "../../contract/syndicator.ts";
import { publicPostSql } from "../../contract/visibility.ts";
import type { PostTypeName } from "../config/schema.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { InvalidPostError } from "./errors.ts";
import { applyUpdate, normalizeProperties, parsePostStatus, parsePublished } from "./jf2.ts";
import { linksUpdateOf, linksUpdateSql } from "./links-update.ts";
import { AWAITING_SYNDICATION_PREDICATE } from "./migrations.ts";
import { COLUMNS, type PostRow, toPost } from "./post-row.ts";
import type { CreatePostInput, PostService } from "./post-service-interface.ts";
import { chooseSlug, createPostUrlBuilder, numberedSlug } from "./post-url.ts";

// How many numbered slugs (slug, slug-2, …) are looked up in one query when the first is taken.
const SLUG_BATCH = 20;
// An unlisted or private post is never sent (src/contract/visibility.ts): it awaits nothing. Added
// beside the index's predicate, which the query still implies.
const PUBLIC = publicPostSql("posts");
const MAX_SLUG_NUMBER = 1000;
const DEFAULT_AWAITING_LIMIT = 100;
const MAX_BIGINT = 9_223_372_036_854_775_807n;

/**
 * Which posts a service sees. "own": the site's own posts only, what its own faces show (Micropub,
 * its pages and feeds, its content store). "all": those a post source keeps from elsewhere too
 * (src/contract/known-posts.ts), what the syndication core walks through.
 */
export type PostScope = "own" | "all";

/** The condition a scope adds to every read of the table (after the rest of the WHERE). */
export function scopeCondition(scope: PostScope): string {
  return scope === "own" ? " AND origin IS NULL" : "";
}

/** The queries whose speed matters with a million posts, for a scope. */
export function postQueriesFor(scope: PostScope) {
  const mine = scopeCondition(scope);
  return {
    findById: `SELECT ${COLUMNS} FROM posts WHERE id = $1::bigint${mine}`,
    findByUrl: `SELECT ${COLUMNS} FROM posts WHERE url = $1${mine}`,
    newest: `SELECT ${COLUMNS} FROM posts WHERE deleted_at IS NULL${mine} ORDER BY posts.published DESC, posts.id DESC LIMIT $1`,
    olderThan: `SELECT ${COLUMNS} FROM posts
    WHERE deleted_at IS NULL AND (published, id) < ($2::timestamptz, $3::bigint)${mine}
    ORDER BY posts.published DESC, posts.id DESC LIMIT $1`,
    newerThan: `SELECT ${COLUMNS} FROM posts
    WHERE deleted_at IS NULL AND (published, id) > ($2::timestamptz, $3::bigint)${mine}
    ORDER BY posts.published ASC, posts.id ASC LIMIT $1`,
    nextAwaiting: `SELECT ${COLUMNS} FROM posts WHERE ${AWAITING_SYNDICATION_PREDICATE} AND ${PUBLIC}${mine} ORDER BY posts.published, posts.id LIMIT $1`,
    nextAwaitingAfter: `SELECT ${COLUMNS} FROM posts
    WHERE ${AWAITING_SYNDICATION_PREDICATE} AND ${PUBLIC} AND (published, id) > ($2::timestamptz, $3::bigint)${mine}
    ORDER BY posts.published, posts.id LIMIT $1`,
    // The same, only posts naming one of the uids in the last parameter (the configured targets).
    nextAwaitingNaming: `SELECT ${COLUMNS} FROM posts WHERE ${AWAITING_SYNDICATION_PREDICATE} AND ${PUBLIC}
    AND properties->'mp-syndicate-to' ?| $2::text[]${mine}
    ORDER BY posts.published, posts.id LIMIT $1`,
    nextAwaitingNamingAfter: `SELECT ${COLUMNS} FROM posts
    WHERE ${AWAITING_SYNDICATION_PREDICATE} AND ${PUBLIC} AND (published, id) > ($2::timestamptz, $3::bigint)
    AND properties->'mp-syndicate-to' ?| $4::text[]${mine}
    ORDER BY posts.published, posts.id LIMIT $1`,
  } as const;
}

/** The queries of every post (the core's); exported so that a test can EXPLAIN them. */
export const postQueries = postQueriesFor("all");

function positiveLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`limit must be a positive whole number; got ${limit}`);
  return limit;
}

/**
 * The posts table behind the PostService interface (see types.ts for the storage rules), seeing the
 * posts of `scope` only: a post outside it is not found, not listed, and cannot be changed.
 */
export function createPostService(
  database: Database,
  publication: Publication & { postTypeUrls?: Partial<Record<PostTypeName, string>> },
  scope: PostScope = "own",
): PostService {
  const postUrl = createPostUrlBuilder(publication, publication.postTypeUrls);
  const queries = postQueriesFor(scope);
  const mine = scopeCondition(scope);

  async function insertFirstFreeUrl(
    slug: string,
    published: Date,
    insert: (url: string, slug: string) => Promise<PostRow | undefined>,
    properties?: Record<string, unknown>,
  ): Promise<PostRow> {
    for (let first = 1; first <= MAX_SLUG_NUMBER; first += SLUG_BATCH) {
      const candidates = Array.from({ length: SLUG_BATCH }, (_, index) => {
        const numbered = numberedSlug(slug, first + index);
        return { slug: numbered, url: postUrl(numbered, published, properties) };
      });
      // Every post's URL, whatever the scope: the unique index spans the posts from elsewhere too.
      const taken = await database.query<{ url: string }>(
        "SELECT url FROM posts WHERE url IN (SELECT jsonb_array_elements_text($1::jsonb))",
        [JSON.stringify(candidates.map((candidate) => candidate.url))],
      );
      const takenUrls = new Set(taken.rows.map((row) => row.url));
      for (const candidate of candidates) {
        if (takenUrls.has(candidate.url)) continue;
        // A concurrent create may take the same URL between the look-up and here: the unique index
        // decides, and the loser moves on to the next number.
        const row = await insert(candidate.url, candidate.slug);
        if (row) return row;
      }
    }
    throw new InvalidPostError(
      `The slug "${slug}" and its ${MAX_SLUG_NUMBER} numbered variants are all taken; choose another mp-slug`,
    );
  }

  async function setDeleted(url: string, deleted: boolean): Promise<Post> {
    // COALESCE keeps the time of the first delete when a post is deleted twice.
    const assignment = deleted ? "COALESCE(deleted_at, now())" : "NULL";
    const { rows } = await database.query<PostRow>(
      `UPDATE posts SET deleted_at = ${assignment}, updated_at = now() WHERE url = $1${mine} RETURNING ${COLUMNS}`,
      [url],
    );
    if (!rows[0]) throw new PostNotFoundError(url);
    return toPost(rows[0]);
  }

  async function updateLocked(tx: Queryable, url: string, update: PostUpdate): Promise<Post> {
    // FOR UPDATE makes a second, concurrent update wait and then read this one's result, so that
    // neither overwrites the other's values.
    const { rows } = await tx.query<PostRow>(
      `SELECT ${COLUMNS} FROM posts WHERE url = $1${mine} FOR UPDATE`,
      [url],
    );
    const row = rows[0];
    if (!row) throw new PostNotFoundError(url);
    const properties = applyUpdate(row.properties, update);
    properties.url = row.url;
    const status = parsePostStatus(properties["post-status"] ?? row.status);
    const published = parsePublished(properties.published);
    const updated = await tx.query<PostRow>(
      `UPDATE posts SET properties = $2::jsonb, status = $3, published = $4::timestamptz, updated_at = now()
       WHERE id = $1::bigint RETURNING ${COLUMNS}`,
      [row.id, JSON.stringify(properties), status, published.toISOString()],
    );
    const saved = updated.rows[0];
    if (!saved) throw new PostNotFoundError(url);
    return toPost(saved);
  }

  /**
   * A write-back with the core's statements in one statement (decision 0068): the row is locked by
   * the UPDATE itself, the core's expressions run when its RETURNING reads them, after that lock (the
   * order a claim takes the post and the ledger's rows), and the post's triggers fire once all of
   * them are done, so that they see the outcomes (decision 0061). Any other update is applied to the
   * row read under a lock, with the core's statements between the read and the write.
   */
  async function updateAlongside(
    url: string,
    update: PostUpdate,
    alongside: AlongsideStatement,
  ): Promise<UpdatedAlongside> {
    const links = linksUpdateOf(update);
    if (!links) {
      return database.transaction(async (tx) => {
        const { rows } = await tx.query<{ alongside: unknown }>(
          `WITH ${alongside.with(1)} SELECT ${alongside.returning} AS alongside`,
          [...alongside.params],
        );
        return { post: await updateLocked(tx, url, update), alongside: rows[0]?.alongside ?? null };
      });
    }
    const first = 2 + alongside.params.length;
    const properties = linksUpdateSql("properties", links, first);
    const { rows } = await database.query<PostRow & { alongside: unknown }>(
      `WITH ${alongside.with(2)}
       UPDATE posts SET properties = ${properties.sql}, updated_at = now()
        WHERE url = $1${mine}
        RETURNING ${COLUMNS}, ${alongside.returning} AS alongside`,
      [url, ...alongside.params, ...properties.params],
    );
    const row = rows[0];
    if (!row) throw new PostNotFoundError(url);
    return { post: toPost(row), alongside: row.alongside };
  }

  // A listener's fault must not fail the change that was made.
  const listeners = new Listeners<PostChange>();
  const notify = (change: PostChange): Post => {
    listeners.tell(change);
    return change.post;
  };

  return {
    onChange(listener) {
      return listeners.add(listener);
    },

    async create(input: CreatePostInput): Promise<Post> {
      const properties = normalizeProperties(input.properties);
      const status = input.status ?? parsePostStatus(properties["post-status"] ?? "published");
      const published =
        properties.published === undefined ? new Date() : parsePublished(properties.published);
      const type = typeof properties.type === "string" ? properties.type : "entry";
      // The client's own published text is kept (with its offset); the column holds the instant.
      if (properties.published === undefined) properties.published = published.toISOString();
      properties.type = type;
      properties["post-status"] = status;
      const row = await insertFirstFreeUrl(
        chooseSlug(input.slug, properties.name),
        published,
        async (url, slug) => {
          const { rows } = await database.query<PostRow>(
            `INSERT INTO posts (url, slug, type, properties, status, published)
             VALUES ($1, $2, $3, $4::jsonb, $5, $6::timestamptz)
             ON CONFLICT (url) DO NOTHING RETURNING ${COLUMNS}`,
            [url, slug, type, JSON.stringify({ ...properties, url }), status, published.toISOString()],
          );
          return rows[0];
        },
        properties,
      );
      return notify({ kind: "create", post: toPost(row) });
    },

    async findByUrl(url) {
      const { rows } = await database.query<PostRow>(queries.findByUrl, [url]);
      return rows[0] ? toPost(rows[0]) : null;
    },

    async findById(id) {
      if (!/^[0-9]{1,19}$/.test(id) || BigInt(id) > MAX_BIGINT) return null;
      const { rows } = await database.query<PostRow>(queries.findById, [id]);
      return rows[0] ? toPost(rows[0]) : null;
    },

    update: async (url, update) =>
      notify({
        kind: "update",
        post: await database.transaction((tx) => updateLocked(tx, url, update)),
        update,
      }),

    // Nothing after its statement waits: its listeners are told, not awaited (decision 0075).
    returnsOnCommit: () => true,

    async updateAlongside(url, update, alongside) {
      const updated = await updateAlongside(url, update, alongside);
      notify({ kind: "update", post: updated.post, update });
      return updated;
    },

    delete: async (url) => notify({ kind: "delete", post: await setDeleted(url, true) }),

    undelete: async (url) => notify({ kind: "undelete", post: await setDeleted(url, false) }),

    async list({ limit, before, after }) {
      positiveLimit(limit);
      if (before && after) throw new RangeError("list takes before or after, not both");
      if (after) {
        // Newer posts: walk up from the cursor, then turn the page round to newest first.
        const position = decodeCursor(after);
        const { rows } = await database.query<PostRow>(queries.newerThan, [
          limit + 1,
          position.published.toISOString(),
          position.id,
        ]);
        const hasNewer = rows.length > limit;
        const posts = rows.slice(0, limit).map(toPost).reverse();
        const newest = posts[0];
        const oldest = posts.at(-1);
        return {
          posts,
          ...(hasNewer && newest ? { previous: encodeCursor(newest) } : {}),
          ...(oldest ? { next: encodeCursor(oldest) } : {}),
        };
      }
      const position = before ? decodeCursor(before) : undefined;
      const { rows } = await database.query<PostRow>(
        position ? queries.olderThan : queries.newest,
        position ? [limit + 1, position.published.toISOString(), position.id] : [limit + 1],
      );
      const hasOlder = rows.length > limit;
      const posts = rows.slice(0, limit).map(toPost);
      const newest = posts[0];
      const oldest = posts.at(-1);
      return {
        posts,
        ...(hasOlder && oldest ? { next: encodeCursor(oldest) } : {}),
        ...(position && newest ? { previous: encodeCursor(newest) } : {}),
      };
    },

    async nextAwaitingSyndication(after?: AwaitingCursor, limit = DEFAULT_AWAITING_LIMIT, onlyTargets?) {
      positiveLimit(limit);
      const keyset = after ? [after.published.toISOString(), after.id] : [];
      const { rows } = onlyTargets
        ? await database.query<PostRow>(
            after ? queries.nextAwaitingNamingAfter : queries.nextAwaitingNaming,
            [limit, ...keyset, [...onlyTargets]],
          )
        : await database.query<PostRow>(after ? queries.nextAwaitingAfter : queries.nextAwaiting, [
            limit,
            ...keyset,
          ]);
      return rows.map(toPost);
    },

    async categories({ filter, limit }) {
      positiveLimit(limit);
      // LIKE's own wildcards in the filter are matched literally.
      const pattern = filter ? `%${filter.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
      const { rows } = await database.query<{ category: string }>(
        `SELECT DISTINCT item #>> '{}' AS category
           FROM posts,
                jsonb_array_elements(CASE jsonb_typeof(properties->'category')
                  WHEN 'array' THEN properties->'category'
                  WHEN 'string' THEN jsonb_build_array(properties->'category')
                  ELSE '[]'::jsonb END) AS item
          WHERE deleted_at IS NULL AND properties ? 'category' AND jsonb_typeof(item) = 'string'${mine}
            AND ($1::text IS NULL OR item #>> '{}' ILIKE $1::text)
          ORDER BY category LIMIT $2::int`,
        [pattern, limit],
      );
      return rows.map((row) => row.category);
    },

    async namesUrl(url) {
      // Every post, whoever's and deleted or not: a deleted post may be undeleted with its photos.
      const { rows } = await database.query<{ found: boolean }>(
        "SELECT EXISTS (SELECT 1 FROM posts WHERE strpos(properties::text, $1) > 0) AS found",
        [JSON.stringify(url).slice(1, -1)],
      );
      return rows[0]?.found === true;
    },

    async countAwaitingSyndication(onlyTargets?) {
      const { rows } = await database.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM posts WHERE ${AWAITING_SYNDICATION_PREDICATE} AND ${PUBLIC}
           AND ($1::text[] IS NULL OR properties->'mp-syndicate-to' ?| $1::text[])${mine}`,
        [onlyTargets ? [...onlyTargets] : null],
      );
      return rows[0]?.count ?? 0;
    },

    async listAwaitingSyndication({ offset, limit, onlyTargets }) {
      positiveLimit(limit);
      if (!Number.isInteger(offset) || offset < 0)
        throw new RangeError(`offset must be a whole number, 0 or more; got ${offset}`);
      const { rows } = await database.query<PostRow>(
        `SELECT ${COLUMNS} FROM posts WHERE ${AWAITING_SYNDICATION_PREDICATE} AND ${PUBLIC}
           AND ($3::text[] IS NULL OR properties->'mp-syndicate-to' ?| $3::text[])${mine}
         ORDER BY posts.published, posts.id OFFSET $1 LIMIT $2`,
        [offset, limit, onlyTargets ? [...onlyTargets] : null],
      );
      return rows.map(toPost);
    },
  };
}
