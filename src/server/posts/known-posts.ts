// The host's known posts (src/contract/known-posts.ts): posts a source learns from elsewhere, kept as
// rows of the posts table with their origin, so that the core's triggers on that table follow their
// edits as they follow the site's own (host migration 002), and its ledger keys their copies.
import type { Database } from "../../contract/database.ts";
import {
  KnownPostConflictError,
  type KnownPostInput,
  type KnownPosts,
  type PostOrigin,
  type RecordedPost,
} from "../../contract/known-posts.ts";
import { Listeners } from "../../contract/listeners.ts";
import type { Post, PostChange } from "../../contract/posts.ts";
import { InvalidPostError } from "./errors.ts";
import { normalizeProperties, type Properties } from "./jf2.ts";
import { COLUMNS, type PostRow, toPost } from "./post-row.ts";

/** What the core writes to a post itself: kept from the row whatever the source says. */
const CORE_PROPERTIES = "'{syndication,mp-syndicate-to}'::text[]";

function storedProperties(input: KnownPostInput, status: string): Properties {
  const properties = normalizeProperties(input.properties);
  properties.type = typeof properties.type === "string" ? properties.type : "entry";
  properties.url = input.url;
  properties.published = input.published.toISOString();
  properties["post-status"] = status;
  return properties;
}

function checkInput(input: KnownPostInput): void {
  if (input.origin.trim() === "") throw new InvalidPostError("A post from elsewhere needs its origin");
  if (!/^https?:\/\//i.test(input.url) || !URL.canParse(input.url))
    throw new InvalidPostError(`A post from elsewhere needs an absolute http(s) URL; got ${input.url}`);
  if (Number.isNaN(input.published.getTime()))
    throw new InvalidPostError(`The post at ${input.url} has no valid date`);
}

export class HostKnownPosts implements KnownPosts {
  private readonly origins = new Map<string, PostOrigin>();
  /** A listener's fault must not fail the change that was recorded. */
  private readonly listeners = new Listeners<PostChange>();

  constructor(private readonly database: Database) {}

  addOrigin(adapter: PostOrigin): void {
    if (this.origins.has(adapter.origin))
      throw new Error(`Two post origins share the name ${adapter.origin}; each must be unique`);
    this.origins.set(adapter.origin, adapter);
  }

  /** The adapter registered for an origin, if any. */
  origin(name: string): PostOrigin | undefined {
    return this.origins.get(name);
  }

  /** Hears every post recorded new or changed (the scheduler wakes for it). */
  onChange(listener: (change: PostChange) => void): () => void {
    return this.listeners.add(listener);
  }

  async record(input: KnownPostInput): Promise<RecordedPost> {
    checkInput(input);
    const status = input.status ?? "published";
    const properties = storedProperties(input, status);
    const recorded = await this.database.transaction(async (tx): Promise<RecordedPost> => {
      // The row this post was recorded as (by its id when the source says its URL changed), and
      // any other row holding the URL; locked, so that two records of one post take turns.
      const { rows } = await tx.query<PostRow>(
        `SELECT ${COLUMNS} FROM posts WHERE url = $1 OR id = $2::bigint FOR UPDATE`,
        [input.url, input.id ?? null],
      );
      const holder = rows.find((row) => row.url === input.url);
      if (holder && (holder.origin !== input.origin || (input.id !== undefined && holder.id !== input.id)))
        throw new KnownPostConflictError(input.url, holder.origin);
      const existing = input.id === undefined ? holder : rows.find((row) => row.id === input.id);
      if (existing && existing.origin !== input.origin)
        throw new KnownPostConflictError(existing.url, existing.origin);
      if (!existing) {
        const { rows: inserted } = await tx.query<PostRow>(
          `INSERT INTO posts (url, slug, type, properties, status, published, origin)
           VALUES ($1, $1, $2, $3::jsonb, $4, $5::timestamptz, $6) RETURNING ${COLUMNS}`,
          [
            input.url,
            properties.type,
            JSON.stringify(properties),
            status,
            input.published.toISOString(),
            input.origin,
          ],
        );
        const row = inserted[0];
        if (!row) throw new Error(`The post at ${input.url} could not be recorded`);
        return { outcome: "new", post: toPost(row) };
      }
      // Written only when something but the core's own properties differs; the core's are kept.
      // The triggers on posts (host migration 002) then tell the core, as they do of a Micropub edit.
      const { rows: updated } = await tx.query<PostRow>(
        `UPDATE posts
            SET url = $2,
                properties = ($3::jsonb - ${CORE_PROPERTIES})
                  || jsonb_strip_nulls(jsonb_build_object(
                       'syndication', properties->'syndication',
                       'mp-syndicate-to', properties->'mp-syndicate-to')),
                status = $4, published = $5::timestamptz, updated_at = now()
          WHERE id = $1::bigint
            AND (url IS DISTINCT FROM $2 OR status IS DISTINCT FROM $4
                 OR published IS DISTINCT FROM $5::timestamptz
                 OR (properties - ${CORE_PROPERTIES}) IS DISTINCT FROM ($3::jsonb - ${CORE_PROPERTIES}))
          RETURNING ${COLUMNS}`,
        [existing.id, input.url, JSON.stringify(properties), status, input.published.toISOString()],
      );
      const row = updated[0];
      return row
        ? { outcome: "changed", post: toPost(row) }
        : { outcome: "unchanged", post: toPost(existing) };
    });
    if (recorded.outcome === "new") this.notify({ kind: "create", post: recorded.post });
    if (recorded.outcome === "changed")
      this.notify({ kind: "update", post: recorded.post, update: { replace: recorded.post.properties } });
    return recorded;
  }

  async findByUrl(url: string): Promise<Post | null> {
    const { rows } = await this.database.query<PostRow>(
      `SELECT ${COLUMNS} FROM posts WHERE url = $1 AND origin IS NOT NULL`,
      [url],
    );
    return rows[0] ? toPost(rows[0]) : null;
  }

  async listByOrigin(origin: string): Promise<Array<{ id: string; url: string; published: Date }>> {
    const { rows } = await this.database.query<{ id: string; url: string; published: Date }>(
      `SELECT id::text AS id, url, published FROM posts WHERE origin = $1 ORDER BY published DESC, id DESC`,
      [origin],
    );
    return rows.map((row) => ({ id: row.id, url: row.url, published: new Date(row.published) }));
  }

  private notify(change: PostChange): void {
    this.listeners.tell(change);
  }
}
