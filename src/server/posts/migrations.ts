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
  {
    // The post-source port's SQL face (src/contract/post-source.ts): the relation the syndication
    // core reads posts through, and the two events it hears of a post's change. The trigger functions
    // do nothing until a plug-in that listens replaces them (CREATE OR REPLACE); the WHEN clauses are
    // evaluated without calling them, so a write-back of links costs two jsonb subtractions.
    id: "host/002-post-source",
    sql: `
CREATE VIEW post_source AS
  SELECT id, url, status, published, deleted_at, properties FROM posts;
CREATE FUNCTION post_source_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RETURN NULL;
END
$$;
CREATE FUNCTION post_source_links_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RETURN NULL;
END
$$;
-- Deleted or restored, or changed in anything but what syndication writes back.
CREATE TRIGGER post_source_changed AFTER UPDATE ON posts FOR EACH ROW
  WHEN (OLD.deleted_at IS DISTINCT FROM NEW.deleted_at
        OR (OLD.properties - '{syndication,mp-syndicate-to}'::text[])
           IS DISTINCT FROM (NEW.properties - '{syndication,mp-syndicate-to}'::text[]))
  EXECUTE FUNCTION post_source_changed();
-- Its links to copies (syndication) changed, whoever wrote them.
CREATE TRIGGER post_source_links_changed AFTER UPDATE ON posts FOR EACH ROW
  WHEN (OLD.properties->'syndication' IS DISTINCT FROM NEW.properties->'syndication')
  EXECUTE FUNCTION post_source_links_changed();
`,
  },
  {
    // Posts a post source keeps from elsewhere (a feed's entries, a remote Micropub server's posts)
    // are rows of this same table, so that the core's foreign keys, triggers, ledger and follow-ups
    // serve them unchanged. `origin` names the source that knows such a post (`feed:<key>`); NULL
    // is this site's own post, the only kind the site's own faces (Micropub, its pages and feeds,
    // its content store) ever show. The post-source view carries it last, for the page to show.
    id: "host/011-post-origin",
    sql: `
ALTER TABLE posts ADD COLUMN origin text NULL;
CREATE INDEX posts_by_origin ON posts (origin, published DESC, id DESC) WHERE origin IS NOT NULL;
CREATE OR REPLACE VIEW post_source AS
  SELECT id, url, status, published, deleted_at, properties, origin FROM posts;
`,
  },
];
