// One batch in a process of its own, for the peak-RSS figure: seeds N awaiting posts, runs the real
// core over them with an instant target, and prints its own memory figures as one JSON line.
// Run by peak-rss.ts as `node --import tsx bench/figures/rss-child.ts <engine> <posts> <location>`.
import { readFileSync } from "node:fs";
import { z } from "zod";
import type { Database } from "../../src/contract/database.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { createLogger } from "../../src/server/logger.ts";
import { postMigrations } from "../../src/server/posts/migrations.ts";
import { createPostService } from "../../src/server/posts/post-service.ts";
import { syndicationMigrations } from "../../src/syndication/migrations.ts";
import { Syndication } from "../../src/syndication/syndication.ts";
import { BenchTarget, benchPublication } from "../fixtures/bench-targets.ts";
import { seedPosts } from "../lib/seed.ts";

const argsSchema = z.tuple([
  z.enum(["pglite", "postgres"]),
  z.coerce.number().int().positive(),
  z.string().min(1).describe("a PGlite folder, or a PostgreSQL URL with its schema"),
]);

export interface RssChildResult {
  posts: number;
  /** RSS once the modules are loaded and the database is open, before any post exists. */
  startRss: number;
  /** RSS after the posts were inserted, before the batch. */
  seededRss: number;
  /**
   * The peak over the life of this process: VmHWM from /proc/self/status where there is one.
   * getrusage's ru_maxrss (process.resourceUsage().maxRSS) is the fallback only: Linux carries it
   * over from the parent across fork and exec, so a child of a large parent reports the parent's
   * peak instead of its own.
   */
  peakRss: number;
  /** process.resourceUsage().maxRSS, in bytes, for comparison. */
  maxRss: number;
  vmHwm: number | null;
  heapUsedAfter: number;
  batchMs: number;
}

function vmHwm(): number | null {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"));
    return match?.[1] ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const [engine, posts, location] = argsSchema.parse(process.argv.slice(2));
  // Only the engine in use is loaded, so that the other one's code is not counted.
  const database: Database =
    engine === "pglite"
      ? await (await import("../../src/server/database/pglite.ts")).openPglite(location)
      : await (await import("../../src/server/database/postgres.ts")).openPostgres(location);
  await migrate(database, [...postMigrations, ...syndicationMigrations]);
  const startRss = process.memoryUsage().rss;
  const target = new BenchTarget("https://instant.example/@rss");
  await seedPosts(database, { count: posts, targets: [target.uid], awaitEvery: 1 });
  const seededRss = process.memoryUsage().rss;
  const syndication = new Syndication({
    database,
    posts: createPostService(database, benchPublication),
    syndicators: () => [target],
    publication: benchPublication,
    logger: createLogger("warn"),
  });
  const started = performance.now();
  const summary = await (await syndication.runs.startBatch("cli")).done;
  const batchMs = performance.now() - started;
  if (summary.syndicated !== posts)
    throw new Error(`The batch syndicated ${summary.syndicated} of ${posts} posts`);
  await syndication.runs.shutdown();
  // maxRSS is in kilobytes.
  const maxRss = process.resourceUsage().maxRSS * 1024;
  const hwm = vmHwm();
  const result: RssChildResult = {
    posts,
    startRss,
    seededRss,
    peakRss: hwm ?? maxRss,
    maxRss,
    vmHwm: hwm,
    heapUsedAfter: process.memoryUsage().heapUsed,
    batchMs,
  };
  await database.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
