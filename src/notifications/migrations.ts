// The notification channels saved from the Notifications page (settings-store.ts reads and writes
// them). A channel set in the environment wins over its row here (docs/notifications.md).
import type { Migration } from "../contract/database.ts";

export const notificationMigrations: Migration[] = [
  {
    id: "endpoint-syndicate/notifications-001-channels",
    sql: `
CREATE TABLE notification_channels (
  -- "email" or "webhook"
  channel text PRIMARY KEY,
  -- what the page shows: never a secret (the SMTP URL is kept without its password)
  settings jsonb NOT NULL,
  -- the SMTP password or the webhook's signing key, sealed: "v1.<key id>.<nonce|tag|ciphertext>"
  secret text NULL,
  secret_set_at timestamptz NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
`,
  },
];
