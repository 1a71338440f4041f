import { performance } from "node:perf_hooks";
import type { Database } from "../../src/server/database/types.ts";
import { startTestServer } from "../../test/helpers/server.ts";
import { BenchTarget } from "../fixtures/bench-targets.ts";
import { openBenchDatabase, probePostgres } from "../lib/databases.ts";
import { seedPosts } from "../lib/seed.ts";

const engine = (process.argv[2] ?? "pglite") as "pglite" | "postgres";
const pgt = await probePostgres();
const bench = await openBenchDatabase(engine, pgt.url);
const target = new BenchTarget("https://slow.example/@x", 200);
await seedPosts(bench.database, { count: 100, targets: [target.uid], awaitEvery: 1 });
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
    headers: { authorization: `Bearer ${token}`, accept: "application/x-ndjson" },
  });
  if (r.status !== 200) await r.text();
  else void r.body?.pipeTo(new WritableStream());
  return [r.status, performance.now() - t] as const;
};
console.log(await post());
// sequential 409s
const seq: number[] = [];
const statuses: Record<number, number> = {};
for (let i = 0; i < 50; i++) {
  const [s, ms] = await post();
  statuses[s] = (statuses[s] ?? 0) + 1;
  if (s === 409) seq.push(ms);
}
console.log(statuses, seq.slice(0, 10));
seq.sort((a, b) => a - b);
console.log("sequential 409 median", seq[25], "p99", seq[48]);
const conc = await Promise.all(Array.from({ length: 100 }, post));
const c = conc.map((x) => x[1]).sort((a, b) => a - b);
console.log("concurrent 409 median", c[50], "p99", c[98], "min", c[0]);
process.exit(0);
