// The WebSub subscriptions table. The feed source adds these to its own migrations. Never edit a
// migration once released: add a new one.
import type { Migration } from "../../../../contract/database.ts";

// No foreign key to the feeds table: the feed source owns its feeds and ends a feed's subscription
// (WebSubSubscriber.unsubscribe) before forgetting it.
const subscriptions = `
CREATE TABLE websub_subscriptions (
  id text PRIMARY KEY,
  feed_key text NOT NULL,
  hub text NOT NULL,
  topic text NOT NULL,
  secret text NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'active', 'renewing', 'denied', 'unsubscribing', 'ended')),
  requested_at timestamptz NOT NULL,
  lease_seconds integer,
  expires_at timestamptz,
  renew_at timestamptz,
  last_error text
);
CREATE INDEX websub_subscriptions_feed ON websub_subscriptions (feed_key, requested_at DESC);
-- What renewDue reads every minute, without scanning ended subscriptions.
CREATE INDEX websub_subscriptions_renewal ON websub_subscriptions (renew_at) WHERE state = 'active';
`;

export const webSubMigrations: Migration[] = [{ id: "feeds-websub/001-subscriptions", sql: subscriptions }];
