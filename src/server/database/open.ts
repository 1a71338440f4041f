import { resolve } from "node:path";
import { openPglite } from "./pglite.ts";
import { openPostgres } from "./postgres.ts";
import type { Database } from "./types.ts";

/**
 * `postgres://…` or `postgresql://…` opens PostgreSQL; `memory:` an in-memory PGlite; anything
 * else is a folder for the embedded PGlite.
 */
export async function openDatabase(location: string): Promise<Database> {
  if (/^postgres(ql)?:\/\//.test(location)) return openPostgres(location);
  if (location === "memory:") return openPglite();
  return openPglite(resolve(location));
}
