// The feed source's own tables, beside the host's posts (its entries are rows there, origin
// `feed:<key>`) and the WebSub subscriptions (webSubMigrations). Never edit a migration once
// released: add a new one.
import type { Migration } from "../../contract/database.ts";
import { webSubMigrations } from "./http/index.ts";

const feeds = `
-- One row per configured feed. An instance takes a feed's turn by moving next_fetch_at forward, so
-- that instances sharing the database fetch it once per interval.
CREATE TABLE feed_sources (
  key text PRIMARY KEY,                 -- the URL as configured; its posts' origin is 'feed:' || key
  url text NOT NULL,                    -- where it is fetched: a permanent redirect (301/308) moves it
  etag text,
  last_modified text,
  next_fetch_at timestamptz,            -- null once stopped
  failures integer NOT NULL DEFAULT 0,
  last_fetch_at timestamptz,
  last_success_at timestamptz,
  last_error text,                      -- what the user should know: a fetch or parse failure, a held change
  error_kind text CHECK (error_kind IN ('fetch', 'parse', 'held')),
  notes jsonb NOT NULL DEFAULT '[]',    -- what the last read set aside (entries without a link, duplicate ids, …)
  baselined_at timestamptz,             -- the first read: what it found is known, not sent
  stopped_at timestamptz,               -- 410 Gone: never fetched again
  stopped_reason text
);
-- Each entry a feed has shown, and the post it is: an entry is matched by its id, else its URL;
-- its content's hash tells an edit. Rows are never deleted: an entry that drops out of the feed is kept.
CREATE TABLE feed_entries (
  feed_key text NOT NULL REFERENCES feed_sources (key) ON DELETE CASCADE,
  post_id bigint NOT NULL,
  entry_id text,
  url text NOT NULL,
  content_hash text NOT NULL,
  published timestamptz NOT NULL,
  first_seen timestamptz NOT NULL,
  PRIMARY KEY (feed_key, post_id)
);
CREATE INDEX feed_entries_by_id ON feed_entries (feed_key, entry_id) WHERE entry_id IS NOT NULL;
CREATE INDEX feed_entries_by_url ON feed_entries (feed_key, url);
CREATE INDEX feed_entries_newest ON feed_entries (feed_key, published DESC);
`;

// The feeds added on the Feeds page (page-feed-store.ts): their options as the \`feeds\` option
// holds them. Their reads are rows of feed_sources like any feed's.
const pageFeeds = `
CREATE TABLE page_feeds (
  key text PRIMARY KEY,                 -- the URL as added, normalised (feedKeyOf)
  options jsonb NOT NULL,               -- url, targets, categories, backfill, pollSeconds, maxEntries
  added_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
`;

// The Micropub write-back of a feed added on the Feeds page (decision 0054): its token, sealed with
// the host's secret box (never in clear, never in \`options\`), and when it was saved.
const pageFeedMicropubToken = `
ALTER TABLE page_feeds ADD COLUMN micropub_token text;
ALTER TABLE page_feeds ADD COLUMN micropub_token_set_at timestamptz;
`;

export const feedSourceMigrations: Migration[] = [
  ...webSubMigrations,
  { id: "feed-source/001-feeds", sql: feeds },
  { id: "feed-source/002-page-feeds", sql: pageFeeds },
  { id: "feed-source/003-page-feed-micropub-token", sql: pageFeedMicropubToken },
];
