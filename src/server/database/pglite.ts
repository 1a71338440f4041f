import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import type { Database, Queryable, QueryResult } from "./types.ts";

/** The embedded database: PostgreSQL compiled to WebAssembly, kept in a folder (or in memory). */
export async function openPglite(dataDir?: string): Promise<Database> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const pglite = await PGlite.create(dataDir ? { dataDir } : {});
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
    close: () => pglite.close(),
  };
}
