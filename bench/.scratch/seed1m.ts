import { openBenchDatabase, probePostgres } from "../lib/databases.ts";
import { seedPosts } from "../lib/seed.ts";

const engine = (process.argv[2] ?? "pglite") as "pglite" | "postgres";
const pgt = await probePostgres();
const b = await openBenchDatabase(engine, pgt.url);
const t = performance.now();
await seedPosts(b.database, {
  count: 1_000_000,
  targets: ["https://x.example/@a"],
  awaitEvery: 1000,
  mixed: true,
});
console.log(
  "seed",
  ((performance.now() - t) / 1000).toFixed(1),
  "s; rss",
  (process.memoryUsage().rss / 1e6).toFixed(0),
  "MB",
);
const t2 = performance.now();
await b.database.exec("ANALYZE posts");
console.log("analyze", ((performance.now() - t2) / 1000).toFixed(1));
await b.close();
