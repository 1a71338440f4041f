import { performance } from "node:perf_hooks";
import { BenchTarget, benchPublication } from "/work/main/bench/fixtures/bench-targets.ts";
import { openBenchDatabase, probePostgres } from "/work/main/bench/lib/databases.ts";
import { QueryTimer } from "/work/main/bench/lib/query-timer.ts";
import { seedPosts } from "/work/main/bench/lib/seed.ts";
import { createLogger } from "/work/main/src/server/logger.ts";
import { createPostService } from "/work/main/src/server/posts/post-service.ts";
import { Syndication } from "/work/main/src/syndication/syndication.ts";

const engine = (process.argv[2] ?? "pglite") as "pglite" | "postgres";
const n = Number(process.argv[3] ?? 1000);
const pgt = await probePostgres();
const db = await openBenchDatabase(engine, pgt.url);
const target = new BenchTarget("https://instant.example/@bench");
let t = performance.now();
await seedPosts(db.database, { count: n, targets: [target.uid], awaitEvery: 1 });
console.log("seed", performance.now() - t);
const timer = new QueryTimer();
const database = timer.wrap(db.database);
const posts = createPostService(database, benchPublication);
const s = new Syndication({
  database,
  posts,
  syndicators: () => [target],
  publication: benchPublication,
  logger: createLogger("warn"),
  options: {},
});
t = performance.now();
const run = await s.startBatch("cli");
const summary = await run.done;
const wall = performance.now() - t;
console.log(summary, wall, wall / n, "db", timer.totalMs() / n, timer.statements() / n);
for (const r of timer.report()) console.log(r.kind.padEnd(60), r.count, (r.totalMs / n).toFixed(3));
await db.close();
