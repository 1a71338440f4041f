import type { Migration } from "../../contract/database.ts";

// The awaiting-syndication predicate appears twice, here and in post-service.ts: PostgreSQL only uses a
// partial index when the query's WHERE implies the index predicate, so both must say exactly the same.
export const AWAITING_SYNDICATION_PREDICATE =
  "status = 'published' AND deleted_at IS NULL AND jsonb_array_length(properties->'mp-syndicate-to') > 0";

export const postMigrations: Migration[] = [
  {
    id: "host/001-posts",
    sql: `
CREATE TABLE posts (
  id bigserial PRIMARY KEY,
  url text NOT NULL,
  slug text NOT NULL,
  type text NOT NULL DEFAULT 'entry',
  properties jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('published', 'draft')),
  published timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz NULL,
  CONSTRAINT posts_url_key UNIQUE (url),
  -- jsonb_array_length() raises on a scalar, and the partial index below evaluates it for every row:
  -- this check (evaluated before index maintenance) turns a stray scalar into a clear error instead.
  CONSTRAINT posts_syndicate_to_is_array CHECK (
    NOT (properties ? 'mp-syndicate-to') OR jsonb_typeof(properties->'mp-syndicate-to') = 'array'
  )
);
CREATE INDEX posts_newest_first ON posts (published DESC, id DESC);
CREATE INDEX posts_awaiting_syndication ON posts (published, id) WHERE ${AWAITING_SYNDICATION_PREDICATE};
`,
  },
];
