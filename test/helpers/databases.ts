// Runs database tests on every engine: PGlite always, PostgreSQL too when TEST_DATABASE_URL is set.
// Each PostgreSQL database gets a schema of its own, so test files never see each other's rows.
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Database } from "../../src/contract/database.ts";
import { openPglite } from "../../src/server/database/pglite.ts";
import { openPostgres } from "../../src/server/database/postgres.ts";

export interface Engine {
  name: "pglite" | "postgres";
  /** A new, empty database; close it when done (the PostgreSQL schema is dropped on close). */
  open(): Promise<Database>;
  /** For servers started as child processes: a DATABASE_URL-like location and a cleanup. */
  location(): Promise<{ url: string; schema?: string; drop(): Promise<void> }>;
}

export const pgliteEngine: Engine = {
  name: "pglite",
  open: () => openPglite(),
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
    async location() {
      const { schema, drop } = await createSchema();
      const withSchema = new URL(url);
      withSchema.searchParams.set("options", `-c search_path=${schema}`);
      return { url: withSchema.toString(), schema, drop };
    },
  };
}

export const engines: Engine[] = [
  pgliteEngine,
  ...(process.env.TEST_DATABASE_URL ? [postgresEngine(process.env.TEST_DATABASE_URL)] : []),
];
