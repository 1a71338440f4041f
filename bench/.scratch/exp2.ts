import { performance } from "node:perf_hooks";
import { openBenchDatabase, probePostgres } from "../lib/databases.ts";

const engine = (process.argv[2] ?? "pglite") as "pglite" | "postgres";
const pgt = await probePostgres();
const db = await openBenchDatabase(engine, pgt.url);
const d = db.database;
async function time(label: string, fn: (i: number) => Promise<unknown>, n = 300) {
  for (let i = 0; i < 20; i++) await fn(1_000_000 + i);
  const t = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  console.log(label.padEnd(40), ((performance.now() - t) / n).toFixed(3), "ms");
}
await d.exec("CREATE TABLE t (id int primary key, v text)");
await time("select 1", () => d.query("SELECT 1"));
await time("select $1", (i) => d.query("SELECT $1::int", [i]));
await time("insert autocommit", (i) => d.query("INSERT INTO t VALUES ($1, 'x')", [i]));
await time("update autocommit", (i) => d.query("UPDATE t SET v = 'y' WHERE id = $1", [i]));
await time("tx select+update", (i) =>
  d.transaction(async (tx) => {
    await tx.query("SELECT * FROM t WHERE id = $1 FOR UPDATE", [i]);
    await tx.query("UPDATE t SET v = 'z' WHERE id = $1", [i]);
  }),
);
if (engine === "postgres") {
  await time("update sync off (tx)", (i) =>
    d.transaction(async (tx) => {
      await tx.query("SET LOCAL synchronous_commit = off");
      await tx.query("UPDATE t SET v = 'w' WHERE id = $1", [i]);
    }),
  );
  console.log(
    (
      await d.query(
        "SELECT name, setting FROM pg_settings WHERE name IN ('fsync','synchronous_commit','wal_sync_method','commit_delay','shared_buffers')",
      )
    ).rows,
  );
}
if (engine === "pglite") {
  console.log(
    (
      await d.query(
        "SELECT name, setting FROM pg_settings WHERE name IN ('fsync','synchronous_commit','wal_sync_method','shared_buffers','wal_level')",
      )
    ).rows,
  );
}
await db.close();
