import { performance } from "node:perf_hooks";
import { createLogger } from "../../src/server/logger.ts";
import { Lease } from "../../src/syndication/lease.ts";
import { RunLog } from "../../src/syndication/run-log.ts";
import { openBenchDatabase, probePostgres } from "../lib/databases.ts";

const engine = (process.argv[2] ?? "pglite") as "pglite" | "postgres";
const pgt = await probePostgres();
const bench = await openBenchDatabase(engine, pgt.url);
const db = bench.database;
const lease = new Lease(db, createLogger("warn"), 30000);
const runLog = new RunLog(db);
const held = await lease.acquire("A", "batch", (tx) => runLog.start("batch", "batch", "A", tx));
console.log("held", !!held);
async function time(label: string, fn: () => Promise<unknown>, n = 300) {
  for (let i = 0; i < 30; i++) await fn();
  const s: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    s.push(performance.now() - t);
  }
  s.sort((a, b) => a - b);
  console.log(label.padEnd(30), "median", s[n / 2]!.toFixed(3), "p99", s[Math.floor(n * 0.99)]!.toFixed(3));
}
await time("select 1", () => db.query("SELECT 1"));
await time("acquire (refused)", () =>
  lease.acquire("B", "batch", (tx) => runLog.start("batch", "batch", "B", tx)),
);
await time("current", () => lease.current());
await time("empty transaction", () =>
  db.transaction(async (tx) => {
    await tx.query("SELECT 1");
  }),
);
// concurrent 100
const t = performance.now();
const ends: number[] = [];
await Promise.all(
  Array.from({ length: 100 }, async () => {
    await lease.acquire("B", "batch", (tx) => runLog.start("batch", "batch", "B", tx));
    await lease.current();
    ends.push(performance.now() - t);
  }),
);
ends.sort((a, b) => a - b);
console.log("100 concurrent acquire+current: median", ends[50]!.toFixed(1), "p99", ends[98]!.toFixed(1));
await bench.close();
// Prototype: refuse without writing.
const bench2 = await openBenchDatabase(engine, pgt.url);
const db2 = bench2.database;
const lease2 = new Lease(db2, createLogger("warn"), 30000);
const runLog2 = new RunLog(db2);
await lease2.acquire("A", "batch", (tx) => runLog2.start("batch", "batch", "A", tx));
async function acquire2(holder: string) {
  return db2.transaction(async (tx) => {
    let taken = await tx.query(
      `UPDATE syndication_lease SET holder = $2, run_id = NULL, trigger = $3, acquired_at = now(), expires_at = now() + $4::int * interval '1 millisecond' WHERE name = $1 AND expires_at < now() RETURNING expires_at`,
      ["batch", holder, "batch", 30000],
    );
    if (taken.rows.length === 0)
      taken = await tx.query(
        `INSERT INTO syndication_lease (name, holder, run_id, trigger, acquired_at, expires_at) VALUES ($1, $2, NULL, $3, now(), now() + $4::int * interval '1 millisecond') ON CONFLICT (name) DO NOTHING RETURNING expires_at`,
        ["batch", holder, "batch", 30000],
      );
    return taken.rows.length > 0;
  });
}
async function time2(label: string, fn: () => Promise<unknown>, n = 300) {
  for (let i = 0; i < 30; i++) await fn();
  const s: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    s.push(performance.now() - t);
  }
  s.sort((a, b) => a - b);
  console.log(label.padEnd(30), "median", s[n / 2]!.toFixed(3), "p99", s[Math.floor(n * 0.99)]!.toFixed(3));
}
await time2("proto acquire (refused)", () => acquire2("B"));
await time2("precheck current only", () => lease2.current());
const t2 = performance.now();
const ends2: number[] = [];
await Promise.all(
  Array.from({ length: 100 }, async () => {
    await acquire2("B");
    await lease2.current();
    ends2.push(performance.now() - t2);
  }),
);
ends2.sort((a, b) => a - b);
console.log(
  "proto 100 concurrent acquire+current: median",
  ends2[50]!.toFixed(1),
  "p99",
  ends2[98]!.toFixed(1),
);
const t3 = performance.now();
const ends3: number[] = [];
await Promise.all(
  Array.from({ length: 100 }, async () => {
    await lease2.current();
    ends3.push(performance.now() - t3);
  }),
);
ends3.sort((a, b) => a - b);
console.log("precheck 100 concurrent current: median", ends3[50]!.toFixed(1), "p99", ends3[98]!.toFixed(1));
await bench2.close();
