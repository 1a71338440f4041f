import { resolve } from "node:path";
import type { Database } from "../../contract/database.ts";

// Only the engine in use is loaded: PGlite's WebAssembly is not compiled for a PostgreSQL server,
// nor the pg driver for an embedded one.
const pglite = async () => (await import("./pglite.ts")).openPglite;

/**
 * `postgres://…` or `postgresql://…` opens PostgreSQL; `memory:` an in-memory PGlite; anything
 * else is a folder for the embedded PGlite.
 */
export async function openDatabase(location: string): Promise<Database> {
  if (/^postgres(ql)?:\/\//.test(location)) return (await import("./postgres.ts")).openPostgres(location);
  if (location === "memory:") return (await pglite())();
  return (await pglite())(resolve(location));
}
