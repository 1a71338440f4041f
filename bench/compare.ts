// `npm run bench -- --compare <ref> [--rounds N] [--only …] [--quick]`: the figures of this tree
// beside those of another commit, measured so that a shared, loaded machine does not decide the
// answer (decision 0029: "the per-post overhead stays within 10 % of before"). Wall times on a machine
// whose load swings from 2 to 30 differ by more than that from one minute to the next, so the two
// sides are never measured minutes apart: each round runs the bench once on each side, back to
// back, the order alternating (before-after, after-before, …) so neither side always runs in the
// later, often busier, half, and both sides run this tree's bench/ (the same instrument). Each
// figure is the median of the per-round ratios after/before. Measured on a machine at load 10-15,
// wall-time ratios still swung from 0.4 to 13 between rounds (a batch of 200 posts lasts seconds):
// the figures to trust there are the CPU times (the batch's own, and each whole run's, from GNU
// time), which do not count waiting for a core.
import { execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../src/server/package-root.ts";
import type { BenchContext } from "./lib/context.ts";
import type { BenchReport, FigureRow, FigureSection } from "./lib/report.ts";

export interface CompareOptions {
  ref: string;
  rounds: number;
  only: string[];
  quick: boolean;
}

type Side = "before" | "after";

interface RunResult {
  rows: Map<string, FigureRow>;
  cpuMs: number;
}

const GNU_TIME = "/usr/bin/time";
/** Within 10 % of before (decision 0029). */
const ALLOWED_RATIO = 1.1;

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
};

const git = (...args: string[]) =>
  execFileSync("git", args, {
    cwd: PACKAGE_ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  }).trim();

/**
 * A worktree of `ref` with this tree's node_modules and this tree's bench/: the code of then
 * measured by the same instrument as the code of now (and with figures the old bench lacked, such
 * as the batch's CPU time). A bench that needs something the old code lacks fails loudly.
 */
function checkout(ref: string, folder: string): string {
  const commit = git("rev-parse", "--verify", `${ref}^{commit}`);
  git("worktree", "add", "--detach", folder, commit);
  symlinkSync(realpathSync(join(PACKAGE_ROOT, "node_modules")), join(folder, "node_modules"));
  rmSync(join(folder, "bench"), { recursive: true, force: true });
  cpSync(join(PACKAGE_ROOT, "bench"), join(folder, "bench"), { recursive: true });
  return commit;
}

/** One run of the bench in `tree`; its figures keyed by section, figure and engine. */
function runBench(
  tree: string,
  options: CompareOptions,
  results: string,
  scratch: string,
): Promise<RunResult> {
  const args = [
    "--import",
    "tsx",
    "bench/run.ts",
    "--only",
    options.only.join(","),
    ...(options.quick ? ["--quick"] : []),
  ];
  const timeFile = join(scratch, "time");
  const timed = existsSync(GNU_TIME);
  const [command, commandArgs] = timed
    ? [GNU_TIME, ["-o", timeFile, "-f", "%U %S", process.execPath, ...args]]
    : [process.execPath, args];
  return new Promise((done, fail) => {
    // The after side writes its report to the scratch folder, not over bench/results/latest.*.
    const child = spawn(command, commandArgs, {
      cwd: tree,
      env: { ...process.env, POSSEKIT_BENCH_RESULTS: results },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    child.on("error", fail);
    child.on("exit", (code) => {
      if (code !== 0) return fail(new Error(`The bench in ${tree} exited ${code}:\n${stderr}`));
      // The code of before may not know POSSEKIT_BENCH_RESULTS: its report is then in its own tree.
      const name = options.quick ? "latest-quick.json" : "latest.json";
      const path = [join(results, name), join(tree, "bench", "results", name)].find(existsSync);
      if (!path) return fail(new Error(`The bench in ${tree} wrote no ${name}`));
      const report = JSON.parse(readFileSync(path, "utf8")) as BenchReport;
      rmSync(path);
      const rows = new Map<string, FigureRow>();
      for (const section of report.sections)
        for (const row of section.rows)
          if (typeof row.value === "number") rows.set(`${section.id}: ${row.figure} (${row.engine})`, row);
      const [user = Number.NaN, system = Number.NaN] = timed
        ? readFileSync(timeFile, "utf8").trim().split(/\s+/).map(Number)
        : [];
      done({ rows, cpuMs: (user + system) * 1000 });
    });
  });
}

export async function compare(context: BenchContext, options: CompareOptions): Promise<FigureSection> {
  const before = join(context.workDir, "before");
  const results = join(context.workDir, "results");
  mkdirSync(results, { recursive: true });
  const commit = checkout(options.ref, before);
  const trees: Record<Side, string> = { before, after: PACKAGE_ROOT };
  const runs: Record<Side, RunResult[]> = { before: [], after: [] };
  try {
    for (let round = 0; round < options.rounds; round += 1) {
      const order: Side[] = round % 2 === 0 ? ["before", "after"] : ["after", "before"];
      for (const side of order) {
        context.log(`compare: round ${round + 1} of ${options.rounds}, ${side}`);
        runs[side].push(await runBench(trees[side], options, results, context.workDir));
      }
    }
  } finally {
    git("worktree", "remove", "--force", before);
  }

  const rows: FigureRow[] = [];
  const keys = [...(runs.after[0]?.rows.keys() ?? [])].filter((key) =>
    runs.before.every((run) => run.rows.has(key)),
  );
  for (const key of keys) {
    const valuesOf = (side: Side) => runs[side].map((run) => run.rows.get(key)?.value ?? Number.NaN);
    const beforeValues = valuesOf("before");
    const afterValues = valuesOf("after");
    const ratio = median(afterValues.map((value, round) => value / (beforeValues[round] ?? Number.NaN)));
    const sample = runs.after[0]?.rows.get(key);
    const timed = sample?.unit === "ms";
    rows.push({
      figure: key,
      engine: sample?.engine ?? "-",
      measured: `after/before ${ratio.toFixed(2)}`,
      value: ratio,
      unit: "ratio",
      goal: timed ? `≤ ${ALLOWED_RATIO.toFixed(2)}` : "-",
      verdict: timed ? (ratio <= ALLOWED_RATIO ? "PASS" : "MISS") : "INFO",
      note:
        `median before ${median(beforeValues).toPrecision(3)} ${sample?.unit ?? ""}, after ${median(afterValues).toPrecision(3)}; ` +
        `per round: ${beforeValues.map((value, round) => `${value.toPrecision(3)}→${(afterValues[round] ?? Number.NaN).toPrecision(3)}`).join(", ")}`,
    });
  }
  const cpu = (side: Side) => runs[side].map((run) => run.cpuMs);
  rows.push({
    figure: "CPU time of a whole bench run (user + system)",
    engine: "-",
    measured: `after/before ${median(cpu("after").map((ms, round) => ms / (cpu("before")[round] ?? Number.NaN))).toFixed(2)}`,
    value: median(cpu("after")) / median(cpu("before")),
    unit: "ratio",
    goal: "-",
    verdict: "INFO",
    note: `median before ${(median(cpu("before")) / 1000).toFixed(1)} s, after ${(median(cpu("after")) / 1000).toFixed(1)} s; includes seeding and start-up`,
  });
  return {
    id: "compare",
    title: `This tree against ${options.ref} (${commit.slice(0, 7)})`,
    method:
      `${options.rounds} rounds; each runs \`bench/run.ts --only ${options.only.join(",")}${options.quick ? " --quick" : ""}\` ` +
      "once in a worktree of the reference and once in this tree, back to back, the order alternating each round. " +
      "A figure's result is the median over rounds of after ÷ before, so that load which comes and goes over " +
      "minutes weighs on both sides of each ratio alike; both sides run this tree's bench/. A time figure passes " +
      "within 10 % of before. On a loaded machine trust the CPU-time figures: wall times wait for a core.",
    rows,
    details: [],
    data: { ref: options.ref, commit, runs: { before: runs.before.length, after: runs.after.length } },
  };
}
