import type { Migration } from "../../contract/database.ts";

export const storeMigrations: Migration[] = [
  {
    id: "host/010-publication-store",
    sql: `
-- Where each post's file is in the store, so that a post whose path changes (a new date in a Jekyll
-- path, a draft published) leaves no stale file behind.
CREATE TABLE publication_files (
  post_id bigint PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
  path text NOT NULL
);
-- Posts recorded in the database whose change the store has not taken yet: retried, and shown.
CREATE TABLE publication_pending (
  post_id bigint PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
  action text NOT NULL,
  attempts int NOT NULL DEFAULT 1,
  last_error text NOT NULL,
  next_attempt_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
`,
  },
];
