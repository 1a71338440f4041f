// `npm run bench [-- --quick] [-- --only id,id]`: measures every figure of the endpoint against its
// goal, prints a table, and writes bench/results/latest.md and latest.json (latest-quick.* for a
// quick run, so that a smoke run never replaces the committed report). With --compare <ref>, the
// figures beside those of another commit, measured in alternating rounds (bench/compare.ts).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, freemem, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { PACKAGE_ROOT } from "../src/server/package-root.ts";
import { compare } from "./compare.ts";
import { batchOverhead } from "./figures/batch-overhead.ts";
import { crashRecovery } from "./figures/crash-recovery.ts";
import { feedHostile } from "./figures/feed-hostile.ts";
import { feedParse } from "./figures/feed-parse.ts";
import { feedPolling } from "./figures/feed-polling.ts";
import { feedPush } from "./figures/feed-push.ts";
import { footprint } from "./figures/footprint.ts";
import { indiekitSideBySide } from "./figures/indiekit-side-by-side.ts";
import { latencyFloor } from "./figures/latency-floor.ts";
import { lockContention } from "./figures/lock-contention.ts";
import { nextAwaiting } from "./figures/next-awaiting.ts";
import { pageFirstPaint } from "./figures/page-first-paint.ts";
import { peakRss } from "./figures/peak-rss.ts";
import { publishing } from "./figures/publishing.ts";
import { schedulerFigures } from "./figures/scheduler.ts";
import { syndicateAllFigures } from "./figures/syndicate-all.ts";
import type { BenchContext } from "./lib/context.ts";
import { type EngineName, probePostgres } from "./lib/databases.ts";
import { type BenchReport, consoleTable, type FigureSection, writeReport } from "./lib/report.ts";
import { megabytes } from "./lib/stats.ts";

const FIGURES: Record<string, (context: BenchContext) => Promise<FigureSection>> = {
  "batch-overhead": async (context) => (await batchOverhead(context)).section,
  "next-awaiting": nextAwaiting,
  "latency-floor": latencyFloor,
  "lock-contention": lockContention,
  "crash-recovery": crashRecovery,
  "peak-rss": peakRss,
  scheduler: schedulerFigures,
  "syndicate-all": syndicateAllFigures,
  footprint,
  "page-first-paint": pageFirstPaint,
  publishing,
  "feed-parse": feedParse,
  "feed-polling": feedPolling,
  "feed-push": feedPush,
  "feed-hostile": feedHostile,
  "indiekit-side-by-side": indiekitSideBySide,
};

const USAGE = `Usage: npm run bench [-- --quick] [-- --only ${Object.keys(FIGURES).join(",")}]
       npm run bench -- --compare <ref> [--rounds N] [--quick] [--only …]
       npm run bench -- --only feed-parse,feed-polling,feed-push --report feeds

  --quick    small sizes: a smoke run of a few minutes (writes bench/results/latest-quick.*)
  --only     measure only these figures (comma-separated)
  --report   the report's name: bench/results/NAME.md and NAME.json instead of latest.* (a
             run of a few figures kept beside the full run's report)
  --compare  this tree against a commit (e.g. 0d6ac1e), in N alternating rounds (default 5);
             each figure as the median of after ÷ before (writes bench/results/compare*.md)`;

function options(): { quick: boolean; only: string[]; compare?: string; rounds: number; report?: string } {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      only: { type: "string" },
      compare: { type: "string" },
      rounds: { type: "string", default: "5" },
      report: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) {
    process.stderr.write(`--rounds must be a whole number, 1 or more.\n\n${USAGE}\n`);
    process.exit(1);
  }
  if (values.report !== undefined && !/^[a-z0-9-]+$/.test(values.report)) {
    process.stderr.write(
      `--report must be a name of lower-case letters, digits and dashes (e.g. feeds).\n\n${USAGE}\n`,
    );
    process.exit(1);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const only = values.only
    ? values.only
        .split(",")
        .map((id) => id.trim())
        .filter(Boolean)
    : Object.keys(FIGURES);
  const unknown = only.filter((id) => !(id in FIGURES));
  if (unknown.length > 0) {
    process.stderr.write(`Unknown figure ${unknown.join(", ")}.\n\n${USAGE}\n`);
    process.exit(1);
  }
  return {
    quick: values.quick ?? false,
    only,
    rounds,
    ...(values.compare ? { compare: values.compare } : {}),
    ...(values.report ? { report: values.report } : {}),
  };
}

/** The commit measured, and the source files changed since (the report says what code it measured). */
function codeState(): string {
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: PACKAGE_ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  try {
    const changed = git("status", "--porcelain", "--", "src")
      .split("\n")
      .filter(Boolean)
      .map((line) => line.slice(3));
    return `${git("rev-parse", "--short", "HEAD")}${changed.length > 0 ? ` with uncommitted changes to ${changed.join(", ")}` : ""}`;
  } catch {
    return "unknown (not a git checkout)";
  }
}

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(", ");

async function main(): Promise<void> {
  const { quick, only, compare: ref, rounds, report: reportName } = options();
  const started = performance.now();
  const log = (message: string) =>
    process.stderr.write(
      `[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${message}\n`,
    );
  const postgres = await probePostgres();
  const engines: EngineName[] = postgres.version === null ? ["pglite"] : ["pglite", "postgres"];
  if (postgres.version === null) log(`PostgreSQL not reachable, its rows are skipped: ${postgres.reason}`);
  const workDir = mkdtempSync(join(tmpdir(), "possekit-bench-"));
  const context: BenchContext = { quick, engines, postgres, workDir, log };
  const loadAtStart = load();
  const code = codeState();
  const sections: FigureSection[] = [];
  const cpu = cpus();
  // POSSEKIT_BENCH_RESULTS: where --compare has each of its runs write, apart from the reports kept.
  const folder = process.env.POSSEKIT_BENCH_RESULTS ?? join(PACKAGE_ROOT, "bench", "results");
  const reportSoFar = (figures: readonly string[]): BenchReport => ({
    generatedAt: new Date().toISOString(),
    mode: quick ? "quick" : "full",
    durationMs: performance.now() - started,
    environment: {
      Code: code,
      Node: process.version,
      Platform: `${process.platform} ${process.arch}`,
      CPU: `${cpu.length} × ${cpu[0]?.model.trim() ?? "unknown"}`,
      Memory: `${megabytes(totalmem())} (${megabytes(freemem())} free at the end)`,
      "Load average (1, 5, 15 min)": `${loadAtStart} at the start, ${load()} at the end`,
      PGlite: "in memory, or a folder for child servers",
      PostgreSQL: postgres.version ?? `not reachable (${postgres.reason ?? "no answer"})`,
      Figures:
        figures.length === only.length
          ? only.join(", ")
          : `${figures.join(", ")} measured so far (of ${only.join(", ")})`,
    },
    sections,
  });
  const reportFile = ref ? "compare" : reportName;
  let written = { markdown: "", json: "" };
  const done: string[] = [];
  try {
    if (ref) sections.push(await compare(context, { ref, rounds, only, quick }));
    else
      for (const id of only) {
        const measure = FIGURES[id];
        if (!measure) continue;
        sections.push(await measureOrSkip(id, measure, context));
        done.push(id);
        // Written after every figure: a run that dies later keeps everything measured before.
        written = writeReport(reportSoFar(done), folder, reportFile);
      }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  written = writeReport(reportSoFar(only), folder, reportFile);
  process.stdout.write(
    `\n${consoleTable(sections)}\n\nReport: ${written.markdown}\n        ${written.json}\n`,
  );
  // The report is written: a figure that failed may have left a server or a timer behind, which
  // must not keep the run from ending.
  process.exit(0);
}

/**
 * One figure; a figure that throws (a program it needs is missing and cannot be installed, a child
 * that dies) becomes a SKIP row with the reason, and the run goes on to the next figure.
 */
async function measureOrSkip(
  id: string,
  measure: (context: BenchContext) => Promise<FigureSection>,
  context: BenchContext,
): Promise<FigureSection> {
  try {
    return await measure(context);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    context.log(`${id}: not measured: ${reason}`);
    return {
      id,
      title: `${id}: not measured`,
      method: "The figure failed before it finished; the rest of the run went on.",
      rows: [
        {
          figure: id,
          engine: "-",
          measured: "-",
          value: null,
          unit: "",
          goal: "-",
          verdict: "SKIP",
          note: reason,
        },
      ],
      details: error instanceof Error && error.stack ? ["```", error.stack, "```"] : [],
      data: { error: String(error) },
    };
  }
}

await main();
