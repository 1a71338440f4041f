import { performance } from "node:perf_hooks";
import type { Database } from "../../src/server/database/types.ts";
import { startTestServer } from "../../test/helpers/server.ts";
import { BenchTarget } from "../fixtures/bench-targets.ts";
import { openBenchDatabase, probePostgres } from "../lib/databases.ts";
import { seedPosts } from "../lib/seed.ts";

const engine = (process.argv[2] ?? "pglite") as "pglite" | "postgres";
const pgt = await probePostgres();
const bench = await openBenchDatabase(engine, pgt.url);
const target = new BenchTarget("https://slow.example/@x", 60_000);
await seedPosts(bench.database, { count: 5, targets: [target.uid], awaitEvery: 1 });
const kept: Database = { ...bench.database, close: async () => {} };
const server = await startTestServer({
  engine: { name: engine, open: async () => kept, location: () => Promise.reject(new Error()) },
  config: {
    plugins: ["@possekit/endpoint-syndicate"],
    application: { rateLimit: { authenticated: 1000000 } },
  },
  plugins: [target],
});
const token = await server.token("update");
const post = async () => {
  const t = performance.now();
  const r = await fetch(`${server.url}/syndicate`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, accept: "application/json" },
  });
  if (r.status !== 200) await r.text();
  else void r.body?.pipeTo(new WritableStream());
  return [r.status, performance.now() - t] as const;
};
{
  const r = await fetch(`${server.url}/syndicate`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, accept: "application/x-ndjson" },
  });
  console.log("first", r.status);
  void r.body?.pipeTo(new WritableStream());
}
for (let i = 0; i < 200; i++) await post();
const seq: number[] = [];
const t0 = performance.now();
for (let i = 0; i < 2000; i++) {
  const [s, ms] = await post();
  if (s === 409) seq.push(ms);
}
const total = performance.now() - t0;
seq.sort((a, b) => a - b);
console.log(
  "sequential 409 n",
  seq.length,
  "median",
  seq[seq.length >> 1]?.toFixed(3),
  "p99",
  seq[Math.floor(seq.length * 0.99)]?.toFixed(3),
  "total",
  total.toFixed(0),
);
const health: number[] = [];
for (let i = 0; i < 1000; i++) {
  const t = performance.now();
  const r = await fetch(`${server.url}/health`);
  await r.text();
  health.push(performance.now() - t);
}
health.sort((a, b) => a - b);
console.log("GET /health median", health[500]?.toFixed(3));
process.exit(0);
