// What one statement and one commit cost on this machine, measured beside the figures that depend on
// them: a figure of 8 statements and 3 commits per post cannot beat 8 round trips and 3 commits.
import type { Database } from "../../src/contract/database.ts";
import { distribution } from "./stats.ts";

export interface RoundTrips {
  /** Median of `SELECT 1`. */
  selectMs: number;
  /** Median of a one-row UPDATE committed on its own (durable: the WAL is flushed to disk). */
  commitMs: number;
  /**
   * PostgreSQL only: the same update in a transaction with synchronous_commit off (BEGIN, SET LOCAL,
   * UPDATE, COMMIT: four round trips, but no wait for the disk).
   */
  asyncCommitMs: number | null;
}

async function median(times: number, run: (index: number) => Promise<unknown>): Promise<number> {
  for (let index = 0; index < 20; index += 1) await run(index);
  const samples: number[] = [];
  for (let index = 0; index < times; index += 1) {
    const started = performance.now();
    await run(index);
    samples.push(performance.now() - started);
  }
  return distribution(samples).median;
}

export async function measureRoundTrips(database: Database, times = 200): Promise<RoundTrips> {
  await database.exec(
    "CREATE TABLE bench_round_trip (id int PRIMARY KEY, n int NOT NULL); INSERT INTO bench_round_trip VALUES (1, 0)",
  );
  try {
    const selectMs = await median(times, () => database.query("SELECT 1"));
    const commitMs = await median(times, () =>
      database.query("UPDATE bench_round_trip SET n = n + 1 WHERE id = 1"),
    );
    const asyncCommitMs =
      database.engine === "postgres"
        ? await median(times, () =>
            database.transaction(async (tx) => {
              await tx.query("SET LOCAL synchronous_commit = off");
              await tx.query("UPDATE bench_round_trip SET n = n + 1 WHERE id = 1");
            }),
          )
        : null;
    return { selectMs, commitMs, asyncCommitMs };
  } finally {
    await database.exec("DROP TABLE bench_round_trip");
  }
}
