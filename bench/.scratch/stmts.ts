import { performance } from "node:perf_hooks";
import { createPostService } from "../../src/server/posts/post-service.ts";
import { Ledger } from "../../src/syndication/ledger.ts";
import { benchPublication } from "../fixtures/bench-targets.ts";
import { openBenchDatabase, probePostgres } from "../lib/databases.ts";
import { seedPosts } from "../lib/seed.ts";

const engine = (process.argv[2] ?? "pglite") as "pglite" | "postgres";
const pgt = await probePostgres();
const folder = process.argv[3];
const bench = folder
  ? await (async () => {
      const { openPglite } = await import("../../src/server/database/pglite.ts");
      const { migrate } = await import("../../src/server/database/migrate.ts");
      const { postMigrations } = await import("../../src/server/posts/migrations.ts");
      const { syndicationMigrations } = await import("../../src/syndication/migrations.ts");
      const database = await openPglite(folder);
      await migrate(database, [...postMigrations, ...syndicationMigrations]);
      return { database, close: () => database.close() };
    })()
  : await openBenchDatabase(engine, pgt.url);
const db = bench.database;
const N = 2000;
await seedPosts(db, { count: N, targets: ["https://t.example/@x"], awaitEvery: 1 });
const ledger = new Ledger(db);
const posts = createPostService(db, benchPublication);
const ids = (await db.query<{ id: string }>("SELECT id::text AS id FROM posts ORDER BY id")).rows.map(
  (r) => r.id,
);
async function time(label: string, fn: (i: number) => Promise<unknown>, n: number) {
  const s: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    s.push(performance.now() - t);
  }
  s.sort((a, b) => a - b);
  console.log(
    label.padEnd(24),
    "median",
    s[Math.floor(n / 2)]!.toFixed(3),
    "mean",
    (s.reduce((a, b) => a + b) / n).toFixed(3),
  );
}
await time("select 1", () => db.query("SELECT 1"), 500);
await time("findById", (i) => posts.findById(ids[i]!), 500);
await time("entriesForPost", (i) => ledger.entriesForPost(ids[i]!), 500);
const claims: any[] = [];
await time(
  "claim",
  async (i) => {
    claims[i] = await ledger.claim({
      postId: ids[i]!,
      targetUid: "https://t.example/@x",
      idempotencyKey: "k" + i,
      holder: "h",
      runId: null,
      trigger: "cli",
    });
  },
  500,
);
await time("recordSuccess", (i) => ledger.recordSuccess(claims[i], "https://copy.example/" + i), 500);
await time(
  "posts.update",
  (i) =>
    posts.update(`https://example.org/notes/bench-${i + 1}/`, {
      add: { syndication: ["https://copy.example/" + i] },
      delete: { "mp-syndicate-to": ["https://t.example/@x"] },
    }),
  500,
);
const explain = async (sql: string, params: unknown[]) =>
  (await db.query<any>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params)).rows[0]["QUERY PLAN"][0];
const e = await explain(
  `SELECT id::text AS id, url, properties, status, published, created_at, updated_at, deleted_at FROM posts WHERE id = $1::bigint`,
  [ids[600]],
);
console.log("findById planning", e["Planning Time"], "exec", e["Execution Time"]);
await bench.close();
