// Runs database tests on every engine: PGlite always, PostgreSQL too when TEST_DATABASE_URL is set
// (only PostgreSQL when TEST_ENGINES=postgres: CI's PostgreSQL part, docs/testing.md). Each PGlite
// database opens from the migrated snapshot (database-snapshot.ts) instead of running initdb; each
// PostgreSQL database gets a schema of its own, so test files never see each other's rows.
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Database } from "../../src/contract/database.ts";
import { openPglite } from "../../src/server/database/pglite.ts";
import { openPostgres } from "../../src/server/database/postgres.ts";
import { snapshot } from "./database-snapshot.ts";

export interface Engine {
  name: "pglite" | "postgres";
  /**
   * A new database holding no rows; close it when done (the PostgreSQL schema is dropped on close).
   * PGlite's has the host's and the syndication plug-in's migrations applied already, PostgreSQL's
   * none: tests apply what they need (migrate skips what is there).
   */
  open(): Promise<Database>;
  /** A new database with no migration applied, for tests of upgrading an older one. */
  openBlank(): Promise<Database>;
  /** For servers started as child processes: a DATABASE_URL-like location and a cleanup. */
  location(): Promise<{ url: string; schema?: string; drop(): Promise<void> }>;
}

export const pgliteEngine: Engine = {
  name: "pglite",
  open: async () => openPglite(undefined, { loadDataDir: await snapshot() }),
  openBlank: () => openPglite(),
  async location() {
    return { url: "memory:", drop: async () => {} };
  },
};

function postgresEngine(url: string): Engine {
  const createSchema = async () => {
    const schema = `t_${randomBytes(6).toString("hex")}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    const drop = async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    };
    return { schema, drop };
  };
  return {
    name: "postgres",
    async open() {
      const { schema, drop } = await createSchema();
      const database = await openPostgres(url, { schema });
      return {
        ...database,
        async close() {
          await database.close();
          await drop();
        },
      };
    },
    // A schema of its own starts with no migration applied: open and openBlank are the same here.
    openBlank() {
      return this.open();
    },
    async location() {
      const { schema, drop } = await createSchema();
      const withSchema = new URL(url);
      withSchema.searchParams.set("options", `-c search_path=${schema}`);
      return { url: withSchema.toString(), schema, drop };
    },
  };
}

const postgresOnly = process.env.TEST_ENGINES === "postgres";
if (postgresOnly && !process.env.TEST_DATABASE_URL)
  throw new Error("TEST_ENGINES=postgres needs TEST_DATABASE_URL");

export const engines: Engine[] = [
  ...(postgresOnly ? [] : [pgliteEngine]),
  ...(process.env.TEST_DATABASE_URL ? [postgresEngine(process.env.TEST_DATABASE_URL)] : []),
];
