// The databases the figures run on: an in-memory PGlite always, and PostgreSQL when one answers
// (TEST_DATABASE_URL, else the local default). Every bench database is new, empty and migrated
// with the real migrations; on PostgreSQL it lives in a schema of its own, dropped on close.
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Database } from "../../src/contract/database.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { openPglite } from "../../src/server/database/pglite.ts";
import { openPostgres } from "../../src/server/database/postgres.ts";
import { postMigrations } from "../../src/server/posts/migrations.ts";
import { syndicationMigrations } from "../../src/syndication/migrations.ts";

export type EngineName = "pglite" | "postgres";

export const ENGINE_LABEL: Record<EngineName, string> = { pglite: "PGlite", postgres: "PostgreSQL" };

export const DEFAULT_POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/test";

export interface PostgresTarget {
  url: string;
  /** null when it did not answer; `reason` says why. */
  version: string | null;
  reason?: string;
}

/** Whether PostgreSQL answers within a few seconds, and its version. The URL is never printed. */
export async function probePostgres(): Promise<PostgresTarget> {
  const url = process.env.TEST_DATABASE_URL ?? DEFAULT_POSTGRES_URL;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ server_version: string }>("SHOW server_version");
    return { url, version: rows[0]?.server_version ?? "unknown" };
  } catch (error) {
    return { url, version: null, reason: error instanceof Error ? error.message : String(error) };
  } finally {
    await client.end().catch(() => {});
  }
}

export interface BenchDatabase {
  engine: EngineName;
  database: Database;
  close(): Promise<void>;
}

/** A schema of its own on PostgreSQL, and how to drop it. */
export async function createSchema(url: string): Promise<{ schema: string; drop(): Promise<void> }> {
  const schema = `bench_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  return {
    schema,
    async drop() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  };
}

/** A PostgreSQL URL whose connections all use `schema`, for child processes (DATABASE_URL). */
export function urlWithSchema(url: string, schema: string): string {
  const withSchema = new URL(url);
  withSchema.searchParams.set("options", `-c search_path=${schema}`);
  return withSchema.toString();
}

export interface BenchDatabaseOptions {
  /**
   * PostgreSQL only: commits do not wait for the disk (synchronous_commit off), to show what the
   * code costs apart from this machine's disk flushes.
   */
  asyncCommit?: boolean;
}

/** The URL with one more `-c name=value` in its connection options. */
export function withSetting(url: string, setting: string): string {
  const withOption = new URL(url);
  withOption.searchParams.set(
    "options",
    `${withOption.searchParams.get("options") ?? ""} -c ${setting}`.trim(),
  );
  return withOption.toString();
}

/** A new database with the posts and syndication tables, on `engine`. */
export async function openBenchDatabase(
  engine: EngineName,
  postgresUrl?: string,
  options: BenchDatabaseOptions = {},
): Promise<BenchDatabase> {
  if (engine === "pglite") {
    const database = await openPglite();
    await migrate(database, [...postMigrations, ...syndicationMigrations]);
    return { engine, database, close: () => database.close() };
  }
  if (!postgresUrl) throw new Error("openBenchDatabase: PostgreSQL needs a URL");
  const { schema, drop } = await createSchema(postgresUrl);
  const database = options.asyncCommit
    ? await openPostgres(withSetting(urlWithSchema(postgresUrl, schema), "synchronous_commit=off"))
    : await openPostgres(postgresUrl, { schema });
  await migrate(database, [...postMigrations, ...syndicationMigrations]);
  return {
    engine,
    database,
    async close() {
      await database.close();
      await drop();
    },
  };
}
