#!/usr/bin/env node
// Generated mutants (StrykerJS, decisions 0057 and 0069) on what a change touches: the TypeScript files
// of the folders stryker.config.mjs names that differ from a base commit are mutated (with --lines,
// only their added and edited lines), each tested by the test files that reach it (its own *.test.ts
// beside it, and the unit and integration test files that import it by name, or when none does, those
// of the nearest module that imports it; system tests start processes whose coverage Stryker cannot
// see). The report stays in reports/stryker/ (mutation.html,
// mutation.json, scores.txt) and each folder's mutation score is printed and checked against its
// threshold (docs/testing.md, "Generated mutants"). The rules are in scripts/stryker-plan.mjs.
//
//   npm run test:stryker                       files changed against main (committed or not)
//   npm run test:stryker -- --base HEAD~3      against another commit
//   npm run test:stryker -- src/net/safe-fetch.ts src/net/private-addresses.ts
//                                              these files, whatever changed
//   npm run test:stryker -- --lines            only the lines the change added or edited (CI's part)
//   npm run test:stryker -- --all              every source file of the folders
//   npm run test:stryker -- --max-mutants 60   at most 60 mutants: a sample, seeded by --seed
//                                              (default: the HEAD commit's id), printed
//   npm run test:stryker -- --timeout-ms 10000 Stryker's timeoutMS for this run
//   npm run test:stryker -- --max-tests 4      at most 4 test files a source file (printed when more
//                                              reach it): Stryker first runs every one of them
//   npm run test:stryker -- --list             prints the files, lines, mutants and tests; runs nothing
//   npm run test:stryker -- --count            prints how many mutants would run; runs nothing
//
// Exit status: 0 when every folder mutated is at or over its threshold (or nothing was to mutate),
// 1 below a threshold, 2 when Stryker itself failed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { FOLDERS, REPORT_DIR } from "../stryker.config.mjs";
import {
  changedLineRanges,
  folderScores,
  isMutable,
  mutantsIn,
  mutateEntries,
  relativeImports,
  sampleMutants,
  scoreLine,
  seedOf,
  testsReaching,
} from "./stryker-plan.mjs";

const root = join(import.meta.dirname, "..");
process.chdir(root);

const args = process.argv.slice(2);
const optionOf = (flag) => {
  const at = args.indexOf(flag);
  return at >= 0 ? args[at + 1] : undefined;
};
const VALUED = ["--base", "--max-mutants", "--seed", "--timeout-ms", "--max-tests"];
const listOnly = args.includes("--list");
const linesOnly = args.includes("--lines");
const everyFile = args.includes("--all");
const base = optionOf("--base") || "main";
const cap = optionOf("--max-mutants") === undefined ? undefined : Number(optionOf("--max-mutants"));
const maxTests = optionOf("--max-tests") === undefined ? undefined : Number(optionOf("--max-tests"));
const timeoutMS = optionOf("--timeout-ms") === undefined ? undefined : Number(optionOf("--timeout-ms"));
const git = (...gitArgs) => spawnSync("git", gitArgs, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
const seedText = optionOf("--seed") ?? git("rev-parse", "HEAD").stdout.trim();
const named = args.filter((arg, index) => !arg.startsWith("--") && !VALUED.includes(args[index - 1] ?? ""));
if (cap !== undefined && !(Number.isInteger(cap) && cap > 0)) {
  console.error(`--max-mutants ${optionOf("--max-mutants")}: write a whole number above 0`);
  process.exit(2);
}
const mutable = (file) => isMutable(file, FOLDERS) && existsSync(file);

/** The point where this branch left the base: what others merged since is not this change. */
function forkPoint() {
  const fork = git("merge-base", base, "HEAD");
  if (fork.status !== 0) {
    console.error(`No common commit with ${base}: ${fork.stderr.trim()} (name a commit with --base)`);
    process.exit(2);
  }
  return fork.stdout.trim();
}
const untracked = () => git("ls-files", "--others", "--exclude-standard").stdout.split("\n").filter(Boolean);

/** file → [[first, last], …] or "all" (every line: a named, new or untracked file, or --all). */
function changes() {
  if (named.length > 0) return new Map(named.map((file) => [relative(root, file), "all"]));
  if (everyFile) {
    const tracked = git("ls-files", ...Object.keys(FOLDERS)).stdout.split("\n");
    return new Map(tracked.filter(Boolean).map((file) => [file, "all"]));
  }
  const fork = forkPoint();
  const whole = new Map(untracked().map((file) => [file, "all"]));
  if (!linesOnly) {
    const files = git("diff", "--name-only", "--diff-filter=AMR", fork).stdout.split("\n").filter(Boolean);
    return new Map([...files.map((file) => [file, "all"]), ...whole]);
  }
  // The working tree against the fork: committed and uncommitted lines alike.
  const diff = git("diff", "-U0", "--no-color", "--diff-filter=AMR", fork, "--", ...Object.keys(FOLDERS));
  return new Map([...changedLineRanges(diff.stdout), ...whole]);
}

const ranges = new Map([...changes()].filter(([file]) => mutable(file)).sort(([a], [b]) => (a < b ? -1 : 1)));
if (ranges.size === 0) {
  if (args.includes("--count")) {
    console.log(0);
    process.exit(0);
  }
  console.log(
    named.length > 0
      ? `None of ${named.join(", ")} is a source file of the mutated folders (${Object.keys(FOLDERS).join(", ")}).`
      : `No source line of the mutated folders differs from ${base}: nothing to mutate.`,
  );
  process.exit(0);
}

// The mutants those lines hold, as Stryker's instrumenter makes them, and the sample when capped.
const found = await mutantsIn(ranges);
const seed = seedOf(seedText);
const { chosen, mutate: sampled } = sampleMutants(found, cap, seed);
const mutate = sampled ?? mutateEntries(ranges);
const chosenFiles = [...new Set(chosen.map((mutant) => mutant.file))];
// How many mutants would run, alone on a line (.ci/run estimates the part's seconds from it).
if (args.includes("--count")) {
  console.log(chosen.length);
  process.exit(0);
}

/** The unit and integration test files, as scripts/test.mjs lists them (system tests are left out). */
function unitAndIntegration() {
  const listed = spawnSync(process.execPath, ["scripts/test.mjs", "--list", "--tier=unit,integration"], {
    encoding: "utf8",
  });
  return listed.stdout
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter((words) => words.length === 2 && (words[0] === "unit" || words[0] === "integration"))
    .map(([, file]) => file);
}

const sourceOf = (file) => readFileSync(file, "utf8");
const tests = new Map(
  unitAndIntegration().map((test) => [test, new Set(relativeImports(test, sourceOf(test)))]),
);
const modules = new Map(
  [...git("ls-files", "src").stdout.split("\n"), ...untracked()]
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts") && existsSync(file))
    .map((file) => [file, new Set(relativeImports(file, sourceOf(file)))]),
);
const reaching = new Map(
  chosenFiles.map((file) => [
    file,
    testsReaching(file, tests, modules, maxTests ? { max: maxTests, maxDirect: maxTests } : {}),
  ]),
);
const testsOf = new Map([...reaching].map(([file, { tests }]) => [file, tests]));
const testFiles = [...new Set([...testsOf.values()].flat())].sort();

const perFile = (file) => chosen.filter((mutant) => mutant.file === file).length;
for (const [file, lines] of ranges) {
  const all = found.filter((mutant) => mutant.file === file).length;
  const where =
    lines === "all"
      ? "the whole file"
      : `lines ${lines.map(([a, b]) => (a === b ? a : `${a}-${b}`)).join(", ")}`;
  console.log(`${file}: ${where}, ${all} mutant(s)${sampled ? `, ${perFile(file)} in the sample` : ""}`);
  for (const test of testsOf.get(file) ?? []) console.log(`  ${test}`);
  const leftOut = reaching.get(file)?.leftOut ?? 0;
  if (leftOut > 0) console.log(`  (and ${leftOut} more that reach it, left out: at most ${maxTests} a file)`);
  if (perFile(file) > 0 && (testsOf.get(file) ?? []).length === 0)
    console.log("  (no test file reaches it: every mutant will survive as NoCoverage)");
}
const summary = sampled
  ? `${chosen.length} of the ${found.length} mutants in the changed code (at most ${cap}: a sample seeded by ${seedText.slice(0, 12)} = ${seed}; the same seed takes the same mutants, STRYKER_SEED or --seed another)`
  : `all ${found.length} mutants in the changed code${cap ? ` (at most ${cap})` : ""}`;
console.log(`Generated mutants: ${summary}, ${testFiles.length} test file(s)`);
if (listOnly) {
  if (sampled) for (const entry of mutate) console.log(`  mutate ${entry}`);
  process.exit(0);
}
if (chosen.length === 0) {
  console.log("The changed lines hold no mutant: nothing to run.");
  process.exit(0);
}
if (testFiles.length === 0) {
  console.error("No test file reaches these files: every mutant would survive. Write their tests first.");
  process.exit(1);
}

mkdirSync(REPORT_DIR, { recursive: true });
// A report of an earlier run must not pass for this one's if Stryker writes none.
rmSync(join(REPORT_DIR, "mutation.json"), { force: true });
const config = join(REPORT_DIR, "run.config.mjs");
// dryRunTimeoutMinutes: Stryker's first run of the chosen tests gives up after 5 minutes by default,
// which a dozen integration test files beside CI's other parts on a shared machine can take.
writeFileSync(
  config,
  `import base from "../../stryker.config.mjs";
export default { ...base, mutate: ${JSON.stringify(mutate)}, tap: { ...base.tap, testFiles: ${JSON.stringify(testFiles)} }, dryRunTimeoutMinutes: 20${timeoutMS ? `, timeoutMS: ${timeoutMS}` : ""} };
`,
);
writeFileSync(join(REPORT_DIR, "mutants.txt"), `${summary}\n${mutate.join("\n")}\n`);
const started = Date.now();
const stryker = spawnSync(join("node_modules", ".bin", "stryker"), ["run", config], { stdio: "inherit" });
const seconds = Math.round((Date.now() - started) / 1000);
if (stryker.status !== 0 || !existsSync(join(REPORT_DIR, "mutation.json"))) {
  console.error(`Stryker failed (exit ${stryker.status}); see the output above.`);
  process.exit(2);
}

const report = JSON.parse(readFileSync(join(REPORT_DIR, "mutation.json"), "utf8"));
const scores = folderScores(report, FOLDERS);
const ran = scores.reduce((sum, { killed, survived, noCoverage }) => sum + killed + survived + noCoverage, 0);
const lines = [
  `Generated mutants: ${summary}; ${ran} valid, on ${chosenFiles.length} file(s), ${testFiles.length} test file(s), ${seconds} s`,
  ...scores.map(scoreLine),
  `Report: ${join(REPORT_DIR, "mutation.html")}`,
];
writeFileSync(join(REPORT_DIR, "scores.txt"), `${lines.join("\n")}\n`);
console.log(lines.join("\n"));
process.exit(scores.every(({ ok }) => ok) ? 0 : 1);
