// What every figure is given: the run's mode, the engines available, a scratch folder, a logger.
import type { EngineName, PostgresTarget } from "./databases.ts";

export interface BenchContext {
  /** Small sizes, for a smoke run in a minute or two. */
  quick: boolean;
  /** PGlite always; PostgreSQL when it answered. */
  engines: EngineName[];
  postgres: PostgresTarget;
  /** A scratch folder for this run (child servers' configs and PGlite folders); removed at the end. */
  workDir: string;
  /** Progress for the person watching, on stderr. */
  log(message: string): void;
}

/** The PostgreSQL URL, which the context only holds when PostgreSQL answered. */
export function postgresUrl(context: BenchContext): string {
  if (context.postgres.version === null) throw new Error("PostgreSQL is not reachable");
  return context.postgres.url;
}

/** The note on rows that could not be measured because PostgreSQL did not answer. */
export function postgresSkipNote(context: BenchContext): string {
  return `PostgreSQL not reachable (set TEST_DATABASE_URL): ${context.postgres.reason ?? "no answer"}`;
}
