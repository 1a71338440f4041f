import type { Database, Migration } from "../../contract/database.ts";

// A fixed key for pg_advisory_xact_lock, so that instances starting together migrate one at a time.
const MIGRATION_LOCK_KEY = 727_274_001;

/** Applies, in order, the migrations not applied yet; each in its own transaction. Returns their ids. */
export async function migrate(database: Database, migrations: Migration[]): Promise<string[]> {
  const ids = new Set<string>();
  for (const migration of migrations) {
    if (ids.has(migration.id)) throw new Error(`Two migrations share the id "${migration.id}"`);
    ids.add(migration.id);
  }
  // Under the lock too: CREATE TABLE IF NOT EXISTS is not safe against a concurrent creation (two
  // instances starting on a new database would both try, and one would fail).
  await database.transaction(async (tx) => {
    if (database.engine === "postgres")
      await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_KEY]);
    await tx.query(
      "CREATE TABLE IF NOT EXISTS schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
    );
  });
  // A start with nothing to apply (nearly every start) reads the list once instead of taking the
  // lock once per migration: on the embedded database each transaction costs milliseconds.
  const known = await database.query<{ id: string }>("SELECT id FROM schema_migrations");
  const seenBefore = new Set(known.rows.map((row) => row.id));
  const applied: string[] = [];
  for (const migration of migrations.filter((m) => !seenBefore.has(m.id))) {
    const done = await database.transaction(async (tx) => {
      if (database.engine === "postgres")
        await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_KEY]);
      const seen = await tx.query("SELECT 1 FROM schema_migrations WHERE id = $1", [migration.id]);
      if (seen.rows.length > 0) return false;
      await tx.exec(migration.sql);
      await tx.query("INSERT INTO schema_migrations (id) VALUES ($1)", [migration.id]);
      return true;
    });
    if (done) applied.push(migration.id);
  }
  return applied;
}
