// Figure: the per-post overhead of a batch. Posts each name one in-process target that returns a
// URL at once, so the whole wall time of the run is the endpoint's own work: listing, reading the
// post and its ledger rows, claiming, recording, writing the URL back.
import { performance } from "node:perf_hooks";
import { createLogger } from "../../src/server/logger.ts";
import { createPostService } from "../../src/server/posts/post-service.ts";
import { Syndication } from "../../src/syndication/syndication.ts";
import { BenchTarget, benchPublication } from "../fixtures/bench-targets.ts";
import { type BenchContext, postgresSkipNote, postgresUrl } from "../lib/context.ts";
import { ENGINE_LABEL, type EngineName, openBenchDatabase } from "../lib/databases.ts";
import { QueryTimer, type QueryKindStats } from "../lib/query-timer.ts";
import type { FigureRow, FigureSection } from "../lib/report.ts";
import { measureRoundTrips, type RoundTrips } from "../lib/round-trips.ts";
import { seedPosts } from "../lib/seed.ts";
import { count, ms } from "../lib/stats.ts";

export const OVERHEAD_GOAL_MS: Record<EngineName, number> = { pglite: 2, postgres: 5 };

export interface BatchMeasurement {
  engine: EngineName;
  posts: number;
  wallMs: number;
  perPostMs: number;
  statementsPerPost: number;
  commitsPerPost: number;
  databaseMsPerPost: number;
  breakdown: QueryKindStats[];
  roundTrips: RoundTrips;
}

async function measure(context: BenchContext, engine: EngineName, posts: number): Promise<BatchMeasurement> {
  const bench = await openBenchDatabase(engine, engine === "postgres" ? postgresUrl(context) : undefined);
  try {
    const roundTrips = await measureRoundTrips(bench.database);
    const target = new BenchTarget("https://instant.example/@bench");
    await seedPosts(bench.database, { count: posts, targets: [target.uid], awaitEvery: 1 });
    if (engine === "postgres") await bench.database.exec("ANALYZE posts");
    const timer = new QueryTimer();
    const database = timer.wrap(bench.database);
    const syndication = new Syndication({
      database,
      posts: createPostService(database, benchPublication),
      syndicators: () => [target],
      publication: benchPublication,
      logger: createLogger("warn"),
    });
    const started = performance.now();
    const run = await syndication.startBatch("cli");
    const summary = await run.done;
    const wallMs = performance.now() - started;
    if (summary.syndicated !== posts || target.calls !== posts)
      throw new Error(
        `The batch of ${posts} syndicated ${summary.syndicated} posts (${target.calls} sends): the figure would mean nothing`,
      );
    await syndication.shutdown();
    return {
      engine,
      posts,
      wallMs,
      perPostMs: wallMs / posts,
      statementsPerPost: timer.statements() / posts,
      commitsPerPost: timer.commits() / posts,
      databaseMsPerPost: timer.totalMs() / posts,
      breakdown: timer.report(),
      roundTrips,
    };
  } finally {
    await bench.close();
  }
}

/** Why a batch missed its goal, from its own breakdown. */
export function explainOverhead(m: BatchMeasurement): string {
  const top = m.breakdown
    .filter((row) => !row.kind.startsWith("  ") && !row.kind.startsWith("transactions"))
    .slice(0, 2)
    .map((row) => `${row.kind} ${ms(row.totalMs / m.posts)}`);
  const transaction = m.breakdown.find((row) => row.kind.startsWith("transactions"));
  const parts = [
    `${m.statementsPerPost.toFixed(1)} statements and ${m.commitsPerPost.toFixed(1)} commits per post`,
    `the database accounts for ${ms(m.databaseMsPerPost)} of ${ms(m.perPostMs)}` +
      ` (${Math.round((100 * m.databaseMsPerPost) / m.perPostMs)}%)`,
    `chiefly ${top.join(", ")}${transaction ? `, and the posts.update transaction ${ms(transaction.totalMs / m.posts)}` : ""}`,
  ];
  if (m.engine === "postgres") {
    parts.push(
      `one durable commit costs ${ms(m.roundTrips.commitMs)} here against ${ms(m.roundTrips.selectMs)} for a SELECT` +
        ` (the WAL flush to disk), so the ${m.commitsPerPost.toFixed(0)} commits alone take` +
        ` ~${ms(m.commitsPerPost * m.roundTrips.commitMs)}`,
    );
  } else {
    parts.push(
      `one PGlite statement costs ~${ms(m.roundTrips.selectMs)} even for SELECT 1 (a round trip through` +
        ` the WebAssembly wire protocol), so ${m.statementsPerPost.toFixed(0)} statements alone take` +
        ` ~${ms(m.statementsPerPost * m.roundTrips.selectMs)}`,
    );
  }
  return `${parts.join("; ")}. See "Suggested fixes".`;
}

function breakdownTable(m: BatchMeasurement): string {
  const lines = [
    `Where the time goes, ${ENGINE_LABEL[m.engine]}, batch of ${count(m.posts)} (per post; SELECT 1 takes` +
      ` ${ms(m.roundTrips.selectMs)}, a one-row autocommit UPDATE ${ms(m.roundTrips.commitMs)}` +
      `${m.roundTrips.asyncCommitMs === null ? "" : `, the same in a transaction with synchronous_commit off ${ms(m.roundTrips.asyncCommitMs)}`}):`,
    "",
    "| Statement | Per post | Time per post |",
    "|---|---|---|",
  ];
  for (const row of m.breakdown)
    lines.push(`| ${row.kind.trim()} | ${(row.count / m.posts).toFixed(2)} | ${ms(row.totalMs / m.posts)} |`);
  lines.push(
    `| **all database work** | ${m.statementsPerPost.toFixed(1)} statements, ${m.commitsPerPost.toFixed(1)} commits | **${ms(m.databaseMsPerPost)}** |`,
    `| the rest (JavaScript: the core, zod, JSON) | | ${ms(m.perPostMs - m.databaseMsPerPost)} |`,
  );
  return lines.join("\n");
}

export async function batchOverhead(context: BenchContext): Promise<{ section: FigureSection; measurements: BatchMeasurement[] }> {
  const sizes = context.quick ? [200, 1_000] : [1_000, 10_000];
  const rows: FigureRow[] = [];
  const measurements: BatchMeasurement[] = [];
  for (const engine of ["pglite", "postgres"] as const) {
    for (const posts of sizes) {
      const figure = `Per-post overhead, batch of ${count(posts)} posts, instant target`;
      const goal = `≤ ${OVERHEAD_GOAL_MS[engine]} ms`;
      if (!context.engines.includes(engine)) {
        rows.push({ figure, engine: ENGINE_LABEL[engine], measured: "-", value: null, unit: "ms", goal, verdict: "SKIP", note: postgresSkipNote(context) });
        continue;
      }
      context.log(`batch overhead: ${count(posts)} posts on ${ENGINE_LABEL[engine]}`);
      const m = await measure(context, engine, posts);
      measurements.push(m);
      const pass = m.perPostMs <= OVERHEAD_GOAL_MS[engine];
      rows.push({
        figure,
        engine: ENGINE_LABEL[engine],
        measured: ms(m.perPostMs),
        value: m.perPostMs,
        unit: "ms",
        goal,
        verdict: pass ? "PASS" : "MISS",
        note: pass
          ? `${count(posts)} posts in ${ms(m.wallMs)}; ${m.statementsPerPost.toFixed(1)} statements per post`
          : explainOverhead(m),
      });
    }
  }
  return {
    measurements,
    section: {
      id: "batch-overhead",
      title: "Per-post overhead of a batch",
      method:
        "N awaiting posts are bulk-inserted into a new, migrated database; each names one in-process target " +
        "that returns a URL at once. The real core (`Syndication.startBatch`) runs over them with the real " +
        "post service; the figure is the batch's wall time divided by N. A timing wrapper around the " +
        "Database interface counts and times every statement for the breakdown.",
      rows,
      details: measurements.map(breakdownTable),
      data: { sizes, measurements },
    },
  };
}
