// The remote-Micropub source's own tables, beside the host's posts (its posts are rows there).
import type { Migration } from "../../contract/database.ts";

const state = `
-- One row per configured remote: when it is polled next (an instance takes a turn by moving this
-- forward, so that instances sharing the database poll it once), and what went wrong last.
CREATE TABLE micropub_sources (
  origin text PRIMARY KEY,
  next_poll_at timestamptz NOT NULL,
  last_poll_at timestamptz,
  last_success_at timestamptz,
  error_kind text CHECK (error_kind IN ('refused', 'unavailable', 'invalid')),
  last_error text,
  failures integer NOT NULL DEFAULT 0
);
-- What a remote post's syndication and mp-syndicate-to held the last time the remote and the row
-- agreed (link-merge.ts): written only once the remote confirmed it, so that whatever differs from
-- it on either side is a change still to carry over, a write-back lost to a crash included.
CREATE TABLE micropub_source_links (
  origin text NOT NULL,
  url text NOT NULL,
  syndication jsonb NOT NULL,
  syndicate_to jsonb NOT NULL,
  PRIMARY KEY (origin, url)
);
`;

const claims = `
-- Who is carrying a post's links to the server right now (link-claims.ts): one instance at a time,
-- until held_until (a lease, so that a crashed holder blocks the post for one lease at most).
-- again: another found it held meanwhile and left it to the holder, which looks once more.
-- opening: which opening of the database took it (an embedded database clears others' at start).
CREATE TABLE micropub_link_claims (
  origin text NOT NULL,
  url text NOT NULL,
  holder text NOT NULL,
  opening text NOT NULL,
  held_until timestamptz NOT NULL,
  again boolean NOT NULL DEFAULT false,
  PRIMARY KEY (origin, url)
);
`;

export const micropubSourceMigrations: Migration[] = [
  { id: "micropub-source/001-state", sql: state },
  { id: "micropub-source/002-link-claims", sql: claims },
];
