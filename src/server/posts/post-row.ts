// A row of the posts table as the post services and the known posts read it, and the Post it is.
import type { Post, PostStatus } from "../../contract/posts.ts";
import type { Properties } from "./jf2.ts";

export interface PostRow {
  id: string;
  url: string;
  properties: Properties;
  status: PostStatus;
  published: Date;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  origin: string | null;
}

// ids leave the database as text: int8 would arrive as a string from pg but as a bigint from PGlite.
export const COLUMNS =
  "id::text AS id, url, properties, status, published, created_at, updated_at, deleted_at, origin";

export function toPost(row: PostRow): Post {
  return {
    id: row.id,
    url: row.url,
    properties: row.properties,
    status: row.status,
    published: new Date(row.published),
    created: new Date(row.created_at),
    updated: new Date(row.updated_at),
    deleted: row.deleted_at !== null,
    ...(row.origin === null ? {} : { origin: row.origin }),
  };
}
