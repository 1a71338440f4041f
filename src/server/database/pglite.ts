import { chmodSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { Database, Queryable, QueryResult } from "./types.ts";

/**
 * The database holds the targets' ledger and the session revocations: only the server's own user may
 * read it. PGlite's file system layer writes files as 0666 whatever the umask, so the folder is made
 * 0700 (nobody else can reach anything inside, whatever its mode) and every file in it is set to 0600
 * when the database opens and when it closes.
 */
function ownerOnly(folder: string): void {
  chmodSync(folder, 0o700);
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) ownerOnly(path);
    else if (entry.isFile()) chmodSync(path, 0o600);
  }
}

/** The embedded database: PostgreSQL compiled to WebAssembly, kept in a folder (or in memory). */
export async function openPglite(dataDir?: string): Promise<Database> {
  // Any folder made on the way (the data folder itself, on a first start) is the owner's alone too.
  if (dataDir) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const pglite = await PGlite.create(dataDir ? { dataDir } : {});
  if (dataDir) ownerOnly(dataDir);
  const wrap = (target: Pick<PGlite, "query" | "exec">): Queryable => ({
    async exec(sql: string): Promise<void> {
      await target.exec(sql);
    },
    async query<Row>(sql: string, params: unknown[] = []): Promise<QueryResult<Row>> {
      const result = await target.query<Row>(sql, params);
      return { rows: result.rows, rowCount: result.affectedRows ?? 0 };
    },
  });
  const root = wrap(pglite);
  return {
    engine: "pglite",
    query: root.query,
    exec: root.exec,
    transaction: (fn) => pglite.transaction((tx) => fn(wrap(tx))),
    close: async () => {
      await pglite.close();
      if (dataDir) ownerOnly(dataDir);
    },
  };
}
