// The connected accounts' table (account-store.ts reads and writes it).
import type { Migration } from "../../contract/database.ts";

export const accountMigrations: Migration[] = [
  {
    id: "host/012-connected-accounts",
    sql: `
CREATE TABLE connected_accounts (
  id text PRIMARY KEY,
  type text NOT NULL,
  uid text NOT NULL UNIQUE,
  options jsonb NOT NULL,
  display jsonb NOT NULL,
  -- field -> {"sealed": "v1.<key id>.<nonce|tag|ciphertext>", "set_at": ISO time}; never plaintext
  secrets jsonb NOT NULL,
  needs_reconnect_reason text NULL,
  needs_reconnect_since timestamptz NULL,
  connected_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
`,
  },
  {
    // What the owner set on the Accounts page beside what connecting found (decision 0058): kept
    // apart from `options`, which a reconnect replaces.
    id: "host/014-connected-account-settings",
    sql: "ALTER TABLE connected_accounts ADD COLUMN settings jsonb NOT NULL DEFAULT '{}'::jsonb;",
  },
];
