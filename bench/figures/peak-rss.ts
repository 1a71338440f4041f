// Figure: the peak resident memory of a process running a batch of 1,000, 10,000 and 100,000 posts,
// each size in a fresh child process that reads its own peak at the end. Results are streamed to
// listeners and not kept, so memory should hardly grow with the number of posts.
import { execFile } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { PACKAGE_ROOT } from "../../src/server/package-root.ts";
import { type BenchContext, postgresSkipNote, postgresUrl } from "../lib/context.ts";
import { createSchema, ENGINE_LABEL, type EngineName, urlWithSchema, withSetting } from "../lib/databases.ts";
import type { FigureRow, FigureSection } from "../lib/report.ts";
import { count, megabytes, seconds } from "../lib/stats.ts";
import type { RssChildResult } from "./rss-child.ts";

const GROWTH_GOAL_BYTES = 50 * 1024 * 1024;
const CHILD = join(PACKAGE_ROOT, "bench", "figures", "rss-child.ts");

async function runChild(engine: EngineName, posts: number, location: string): Promise<RssChildResult> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", CHILD, engine, String(posts), location],
    {
      cwd: PACKAGE_ROOT,
      maxBuffer: 1024 * 1024,
      timeout: 30 * 60_000,
    },
  );
  const line = stdout.trim().split("\n").at(-1) ?? "";
  return JSON.parse(line) as RssChildResult;
}

async function measure(context: BenchContext, engine: EngineName, posts: number): Promise<RssChildResult> {
  if (engine === "pglite") {
    const folder = join(context.workDir, `rss-${posts}`);
    mkdirSync(folder, { recursive: true });
    return runChild(engine, posts, folder);
  }
  const schema = await createSchema(postgresUrl(context));
  try {
    // Memory does not depend on durability: commits that do not wait for the disk let 100,000 posts
    // run in minutes instead of a quarter of an hour on a disk with slow flushes.
    const url = withSetting(urlWithSchema(postgresUrl(context), schema.schema), "synchronous_commit=off");
    return await runChild(engine, posts, url);
  } finally {
    await schema.drop();
  }
}

export async function peakRss(context: BenchContext): Promise<FigureSection> {
  const sizes = context.quick ? [1_000, 5_000] : [1_000, 10_000, 100_000];
  // The endpoint's own memory is the PostgreSQL figure (the database lives in another process);
  // with PGlite the database lives in the same process, and its page cache grows with the data.
  const engine: EngineName = context.engines.includes("postgres") ? "postgres" : "pglite";
  const label = ENGINE_LABEL[engine];
  const rows: FigureRow[] = [];
  const results: RssChildResult[] = [];
  for (const posts of sizes) {
    context.log(`peak RSS: ${count(posts)} posts on ${label}`);
    const r = await measure(context, engine, posts);
    results.push(r);
    rows.push({
      figure: `Peak RSS, batch of ${count(posts)} posts`,
      engine: label,
      measured: megabytes(r.peakRss),
      value: r.peakRss,
      unit: "bytes",
      goal: "-",
      verdict: "INFO",
      note: `${r.vmHwm === null ? "ru_maxrss (no /proc here)" : "VmHWM"}; ${megabytes(r.startRss)} before the posts existed, ${megabytes(r.seededRss)} before the batch; the batch took ${seconds(r.batchMs)}`,
    });
  }
  const first = results[0];
  const last = results.at(-1);
  if (first && last) {
    const growth = last.peakRss - first.peakRss;
    const pass = growth <= GROWTH_GOAL_BYTES;
    rows.push({
      figure: `Peak RSS growth, ${count(first.posts)} → ${count(last.posts)} posts`,
      engine: label,
      measured: megabytes(growth),
      value: growth,
      unit: "bytes",
      goal: "≤ 50 MB",
      verdict: pass ? "PASS" : "MISS",
      note: pass
        ? "results are streamed, not kept; what grows is the set of post ids the run has tried"
        : `grew by ${megabytes(growth)}; the batch keeps a Set of every post id it tried (a few dozen bytes each) and nothing else per post, so look at what else grew: before the batch ${megabytes(first.seededRss)} → ${megabytes(last.seededRss)}`,
    });
  }
  if (!context.engines.includes("postgres"))
    rows.push({
      figure: "Peak RSS on PostgreSQL",
      engine: "PostgreSQL",
      measured: "-",
      value: null,
      unit: "bytes",
      goal: "-",
      verdict: "SKIP",
      note: postgresSkipNote(context),
    });
  return {
    id: "peak-rss",
    title: "Peak memory of a batch",
    method:
      "Each size runs in a new child process (`bench/figures/rss-child.ts`) that opens the database, " +
      "bulk-inserts N awaiting posts with one instant target, runs the real core over them, and reports " +
      "VmHWM from /proc/self/status at the end (the kernel's high-water mark of its resident memory; " +
      "`process.resourceUsage().maxRSS` only where there is no /proc, since Linux carries ru_maxrss over " +
      "from the parent across fork and exec, so a child reports its parent's peak if that was larger). On PostgreSQL, the " +
      "database's memory is another process's, so the figure is the endpoint's own; those connections commit " +
      "with synchronous_commit off, which changes the time and not the memory. The goal is the growth of the " +
      "peak from the smallest to the largest batch.",
    rows,
    details: [],
    data: { engine, sizes, results },
  };
}
