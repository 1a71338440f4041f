#!/usr/bin/env node
// Generated mutants (StrykerJS, decisions 0057 and 0069) on what a change touches: the TypeScript files
// of the folders stryker.config.mjs names that differ from a base commit are mutated (with --lines,
// only their added and edited lines), each tested by the test files that reach it: by hand, those that
// import it by name, or when none does, those of the nearest module that imports it; with --max-tests
// (decision 0071), those that really execute its sampled mutants, found by running the candidates
// of the import graph once each under V8's coverage (scripts/stryker-probe.mjs); with --index too
// (CI, decision 0076), those that execute each sampled mutant's line by the committed coverage
// index (scripts/stryker-index.mjs), its guarding tests in the probe's ranking first, then the
// cheapest (decision 0079), the probe then running only the tests new to it, and, for a mutant whose
// line the index cannot map (its file changed since and the line new or moved, or the indexed
// version gone from git), the index's tests of its file in the guarding ranking (decision 0082), all
// within --max-probes; the plan and the run print how many went to the probe so. System tests
// start processes whose coverage Stryker cannot see. The report stays in reports/stryker/ (mutation.html,
// mutation.json, scores.txt) and each folder's mutation score is printed and checked against its
// threshold (docs/testing.md, "Generated mutants"), with every mutant left standing by file:line.
// The rules are in scripts/stryker-plan.mjs.
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
//   npm run test:stryker -- --max-tests 4      at most 4 integration test files a source file (and 8
//                                              unit ones), chosen by a probe of what they execute:
//                                              Stryker first runs every one of them
//   npm run test:stryker -- --max-probes 12    at most 12 candidate test files probed in all (with
//                                              --max-tests; default 12)
//   npm run test:stryker -- --probe-jobs 3     3 probes at a time (default 1)
//   npm run test:stryker -- --max-tests 4 --index
//                                              the tests from stryker-coverage.json that execute
//                                              each mutant's line, its guarding tests first, then
//                                              the cheapest, --per-mutant of them
//                                              (default 2) within --index-seconds of the index's
//                                              seconds (default 150); the probe only for the tests
//                                              new to the index, the files it lacks, and the lines
//                                              it cannot map (then among its tests of their file)
//   npm run test:stryker -- --list             prints the files, lines, mutants and tests; runs nothing
//   npm run test:stryker -- --count            prints how many mutants would run; runs nothing
//
// Exit status (gateVerdict): 0 when no folder mutated is shown below its threshold beyond the
// sample's error (one-sided 95 %; or nothing was to mutate), 1 when one is, 2 when Stryker itself failed. CI's part gates on it (decision 0071).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { FOLDERS, REPORT_DIR, REPORTED_ONLY } from "../stryker.config.mjs";
import {
  blobsOf,
  cheapestTests,
  guardingTests,
  INDEX_FILE,
  indexedTests,
  lineMapOf,
  probeCandidatesOf,
  readIndex,
  unitAndIntegration,
  unmappedMutants,
} from "./stryker-index.mjs";
import {
  changedLineRanges,
  folderScores,
  gateVerdict,
  isMutable,
  mutantsIn,
  mutateEntries,
  relativeImports,
  sampleMutants,
  scoreLine,
  seedOf,
  standingMutants,
  testsReaching,
} from "./stryker-plan.mjs";
import { chooseTests, mutantKey, probeTest, testCandidates, wordsOfMutants } from "./stryker-probe.mjs";

const root = join(import.meta.dirname, "..");
process.chdir(root);

const args = process.argv.slice(2);
const optionOf = (flag) => {
  const at = args.indexOf(flag);
  return at >= 0 ? args[at + 1] : undefined;
};
const VALUED = [
  "--base",
  "--max-mutants",
  "--seed",
  "--timeout-ms",
  "--max-tests",
  "--max-probes",
  "--probe-jobs",
  "--index-seconds",
  "--per-mutant",
];
const listOnly = args.includes("--list");
const linesOnly = args.includes("--lines");
const everyFile = args.includes("--all");
const base = optionOf("--base") || "main";
const cap = optionOf("--max-mutants") === undefined ? undefined : Number(optionOf("--max-mutants"));
const maxTests = optionOf("--max-tests") === undefined ? undefined : Number(optionOf("--max-tests"));
const maxProbes = optionOf("--max-probes") === undefined ? 12 : Number(optionOf("--max-probes"));
const probeJobs = optionOf("--probe-jobs") === undefined ? 1 : Number(optionOf("--probe-jobs"));
const useIndex = args.includes("--index");
const indexSeconds = optionOf("--index-seconds") === undefined ? 150 : Number(optionOf("--index-seconds"));
const perMutant = optionOf("--per-mutant") === undefined ? 2 : Number(optionOf("--per-mutant"));
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

const texts = new Map();
const sourceOf = (file) => {
  if (!texts.has(file)) texts.set(file, readFileSync(file, "utf8"));
  return texts.get(file);
};
const tests = new Map(
  unitAndIntegration(root).map((test) => [test, new Set(relativeImports(test, sourceOf(test)))]),
);
// Every module a test may reach through: the sources and the helpers under test/ (a test that starts
// the host does so through one, test/endpoint/endpoint-server.ts, which imports the host).
const modules = new Map(
  [...git("ls-files", "src", "test").stdout.split("\n"), ...untracked()]
    .filter(
      (file) =>
        file.endsWith(".ts") && !file.endsWith(".test.ts") && !file.endsWith(".d.ts") && existsSync(file),
    )
    .map((file) => [file, new Set(relativeImports(file, sourceOf(file)))]),
);
/**
 * A file's candidates, those whose text names the mutated code's rare words first (decision 0071):
 * the words of its sampled mutants, or of `mutants` (one mutant's, for its guarding tests).
 */
const candidatesOf = (file, mutants = chosen.filter((mutant) => mutant.file === file)) =>
  testCandidates(file, tests, modules, { words: wordsOfMutants(sourceOf(file), mutants), textOf: sourceOf });
/** file → { tests, leftOut, note }: the test files Stryker gets for each file's mutants. */
const reaching = new Map();
let probeSummary = "";
const index = maxTests && useIndex ? readIndex(root) : null;
if (maxTests && useIndex && !index) console.log(`No ${INDEX_FILE}: the probe alone chooses the tests`);
/** `${file}:${line}` of each sampled mutant the index gave a chosen test (checked against Stryker's run). */
const placedByIndex = new Set();
/** The probe (decision 0071) over these candidates; returns its choice, and prints what it ran. */
async function probeChoice(mutantsByFile, candidatesByFile) {
  const probeStarted = Date.now();
  const choice = await chooseTests(
    mutantsByFile,
    candidatesByFile,
    async (test) => {
      // A test that failed beside other probes gets a second run before it is left out: a test that
      // fails only under load must not take its coverage away, and the score with it.
      const ran = (await probeTest(test, chosen, { root })) ?? (await probeTest(test, chosen, { root }));
      console.log(
        `  probed ${test}: ${ran === null ? "failed, left out" : `executes ${ran.size} sampled mutant(s)`}`,
      );
      return ran;
    },
    { maxTests, maxProbes, jobs: probeJobs },
  );
  return { ...choice, seconds: Math.round((Date.now() - probeStarted) / 1000) };
}
if (index) {
  // CI (decision 0076): the committed coverage index names the test files that execute each sampled
  // mutant's line (through the diff from the version it indexed), and `perMutant` of them are taken a
  // mutant within `indexSeconds` of the index's seconds: its guarding tests first (decision 0079),
  // then the cheapest. The tests the index does not know as they are now (new or edited by the
  // change) are probed under coverage, and for a file the index lacks, every candidate of the import
  // graph (decision 0071); for a line it cannot map, the index's tests of its file (decision 0082).
  // New to the index: a test edited since it was built, or one it lacks that its commit did not have
  // (a test it lacks that was there then failed or was left out when it was built: not a candidate).
  const atBuild = git("ls-tree", "-r", "--name-only", index.built.commit, "--", "src", "test");
  const thereAtBuild = new Set(atBuild.status === 0 ? atBuild.stdout.split("\n") : []);
  const blobs = blobsOf(root, [...tests.keys(), ...chosenFiles]);
  const fresh = new Set(
    [...tests.keys()].filter((test) =>
      index.tests[test] ? index.tests[test].blob !== blobs.get(test) : !thereAtBuild.has(test),
    ),
  );
  const known = Object.fromEntries(
    Object.entries(index.tests).filter(([test]) => tests.has(test) && !fresh.has(test)),
  );
  const maps = new Map();
  const mapOf = (file) => {
    if (!maps.has(file)) maps.set(file, lineMapOf(root, file, index.files[file].blob));
    return maps.get(file);
  };
  const candidates = indexedTests(chosen, { ...index, tests: known }, mapOf);
  // Each mutant's guarding tests first (decision 0079): the first of those that execute its line in
  // the probe's ranking for its own line's words; then the cheapest.
  const mutantOf = new Map(chosen.map((mutant) => [mutantKey(mutant), mutant]));
  const guards = guardingTests(
    candidates,
    (key) => {
      const mutant = mutantOf.get(key);
      return mutant ? candidatesOf(mutant.file, [mutant]).map(({ test }) => test) : [];
    },
    perMutant,
  );
  const picked = cheapestTests(candidates, (test) => known[test].seconds, {
    perMutant,
    maxSeconds: indexSeconds,
    guards,
  });
  const guarded = new Set(picked.guarded);
  const pickedSet = new Set(picked.tests);
  const byIndex = (mutant) => (candidates.get(mutantKey(mutant)) ?? []).filter((test) => pickedSet.has(test));
  for (const mutant of chosen)
    if (byIndex(mutant).length > 0) placedByIndex.add(`${mutant.file}:${mutant.line}`);
  const mutantsByFile = new Map(chosenFiles.map((file) => [file, chosen.filter((m) => m.file === file)]));
  const changed = chosenFiles.filter(
    (file) => index.files[file] && index.files[file].blob !== blobs.get(file),
  );
  // A stale index (decision 0082): a mutant of a file changed since, whose line no indexed test maps
  // to (new, moved, or its indexed version gone), is the probe's, among the index's tests of its file.
  const unmapped = unmappedMutants(chosen, index, candidates, new Set(changed));
  const probeCandidates = new Map(
    chosenFiles.map((file) => {
      const mine = unmapped.filter((mutant) => mutant.file === file);
      return [
        file,
        index.files[file]
          ? probeCandidatesOf(file, candidatesOf(file, mine.length > 0 ? mine : undefined), {
              index: { ...index, tests: known },
              fresh,
              unmapped,
            })
          : candidatesOf(file),
      ];
    }),
  );
  const toProbe = !listOnly && [...probeCandidates.values()].some((list) => list.length > 0);
  const probed = toProbe ? await probeChoice(mutantsByFile, probeCandidates) : null;
  probeSummary =
    `; ${picked.tests.length} chosen by the coverage index of ${index.built.date} (${index.built.commit.slice(0, 12)}: ` +
    `guarding tests first, ${guarded.size} of ${chosen.length} sampled mutant(s) given one; ` +
    `${Math.round(picked.seconds)} s by its clock, at most ${indexSeconds}; ${changed.length} sampled file(s) changed since it, their lines mapped through the diff; ` +
    `${unmapped.length} sampled mutant(s) sent to the probe for want of a mapping)` +
    (probed
      ? `, ${probed.tests.length} test file(s) kept of ${probed.probes} probed under coverage (new or edited, or of an unmapped line's file) in ${probed.seconds} s`
      : listOnly
        ? `, and the new or edited tests that reach them probed, with the index's tests of an unmapped line's file`
        : ", no test to probe");
  for (const file of chosenFiles) {
    const mine = mutantsByFile.get(file) ?? [];
    const fromProbe = probed?.byFile.get(file);
    const executedByProbe = (mutant) =>
      !!fromProbe && fromProbe.tests.length > 0 && !fromProbe.unexecuted.includes(mutant);
    const none = mine.filter((m) => byIndex(m).length === 0 && !executedByProbe(m));
    const withGuard = mine.filter((mutant) => guarded.has(mutantKey(mutant))).length;
    const sent = unmapped.filter((mutant) => mutant.file === file).length;
    const candidateCount = probeCandidates.get(file)?.length ?? 0;
    const what = index.files[file]
      ? `index: ${mine.length - none.length} of ${mine.length} sampled mutant(s) executed by a chosen test, ${withGuard} by one of their guarding tests` +
        (sent > 0
          ? `; ${sent} sent to the probe for want of a mapping, ${fromProbe?.probed ?? 0} of ${candidateCount} candidate(s) probed`
          : "")
      : `not in the index: ${fromProbe?.probed ?? 0} of ${candidateCount} candidate(s) probed`;
    const lines =
      none.length > 0 ? `; by none: lines ${[...new Set(none.map((m) => m.line))].join(", ")}` : "";
    const kept = fromProbe?.tests.length ? `; ${fromProbe.tests.length} kept by the probe` : "";
    reaching.set(file, {
      tests: [...new Set([...mine.flatMap(byIndex), ...(fromProbe?.tests ?? [])])].sort(),
      leftOut: 0,
      note: `(${what}${lines}${kept})`,
      // The plan runs no probe: a file whose mutants it will probe is not one no test reaches.
      probes: listOnly ? candidateCount : 0,
    });
  }
} else if (maxTests && listOnly) {
  // The plan runs nothing: the candidates the run would probe, nearest first.
  for (const file of chosenFiles) {
    const candidates = candidatesOf(file);
    const shown = candidates.slice(0, maxTests + 4);
    reaching.set(file, {
      tests: shown.map(({ test, distance }) => `${test} (${distance} module(s) away)`),
      leftOut: candidates.length - shown.length,
      note:
        "(candidates: the run probes them under coverage, at most " +
        maxProbes +
        " in all, and keeps those that execute the mutants)",
    });
  }
} else if (maxTests) {
  // CI before decision 0076, and without an index (decision 0071): the candidates of the import
  // graph, nearest first, each run once under V8's coverage; kept when it executes a sampled mutant
  // that no kept test executes yet.
  const mutantsByFile = new Map(chosenFiles.map((file) => [file, chosen.filter((m) => m.file === file)]));
  const candidatesByFile = new Map(chosenFiles.map((file) => [file, candidatesOf(file)]));
  const choice = await probeChoice(mutantsByFile, candidatesByFile);
  probeSummary = `; ${choice.probes} test file(s) probed under coverage in ${choice.seconds} s`;
  for (const [file, { tests: kept, probed, candidates, unexecuted }] of choice.byFile) {
    const note = `(${probed} of ${candidates} candidate(s) probed; ${unexecuted.length} sampled mutant(s) executed by none${unexecuted.length > 0 ? `: lines ${[...new Set(unexecuted.map((m) => m.line))].join(", ")}` : ""})`;
    reaching.set(file, { tests: kept, leftOut: 0, note });
  }
} else {
  // By hand, with no cap: the tests that import it, or those of the nearest module that imports it;
  // Stryker's coverage per test then runs only those that reach each mutant.
  for (const file of chosenFiles) reaching.set(file, testsReaching(file, tests, modules, {}));
}
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
  if (leftOut > 0) console.log(`  (and ${leftOut} more that reach it, left out)`);
  const note = reaching.get(file)?.note;
  if (note) console.log(`  ${note}`);
  if (perFile(file) > 0 && (testsOf.get(file) ?? []).length === 0)
    console.log(
      reaching.get(file)?.probes
        ? "  (no test file chosen yet: the run probes its candidates for them)"
        : "  (no test file reaches it: every mutant will survive as NoCoverage)",
    );
}
const summary = sampled
  ? `${chosen.length} of the ${found.length} mutants in the changed code (at most ${cap}: a sample seeded by ${seedText.slice(0, 12)} = ${seed}; the same seed takes the same mutants, STRYKER_SEED or --seed another)`
  : `all ${found.length} mutants in the changed code${cap ? ` (at most ${cap})` : ""}`;
console.log(
  `Generated mutants: ${summary}, ${testFiles.length} ${maxTests && listOnly ? "candidate " : ""}test file(s)${probeSummary}`,
);
if (listOnly) {
  if (sampled) for (const entry of mutate) console.log(`  mutate ${entry}`);
  process.exit(0);
}
if (chosen.length === 0) {
  console.log("The changed lines hold no mutant: nothing to run.");
  process.exit(0);
}
if (testFiles.length === 0) {
  console.error(
    "No test file executes the sampled mutants: every one would count as not covered. Write their tests first.",
  );
  console.log(`Gate: FAILED, no test executes the sampled mutants of ${chosenFiles.join(", ")}`);
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
// On a change's lines (CI), a folder REPORTED_ONLY names is reported, not gated (decision 0071; none
// since decision 0079); a run of whole files by hand holds every folder to its threshold.
const verdict = gateVerdict(scores, linesOnly ? REPORTED_ONLY : {});
// The index checked by Stryker's own run (decision 0076): a mutant whose line the index says a chosen
// test executes, which Stryker found no test executing, is a place where the index is wrong or stale.
const disagreements = index
  ? Object.entries(report.files).flatMap(([file, { mutants }]) =>
      mutants
        .filter(
          ({ status, location }) =>
            status === "NoCoverage" && placedByIndex.has(`${file}:${location.start.line}`),
        )
        .map(({ location }) => `${file}:${location.start.line}`),
    )
  : [];
const lines = [
  `Generated mutants: ${summary}; ${ran} valid, on ${chosenFiles.length} file(s), ${testFiles.length} test file(s)${probeSummary}, Stryker ${seconds} s`,
  ...scores.map(scoreLine),
  ...(index
    ? [
        `Coverage index: ${placedByIndex.size} sampled line(s) it gave a chosen test, ${disagreements.length} of their mutants not covered in Stryker's run${disagreements.length ? ` (${[...new Set(disagreements)].join(", ")}: refresh it, node scripts/stryker-index.mjs)` : ""}`,
      ]
    : []),
  ...standingMutants(report),
  verdict.line,
  `Report: ${join(REPORT_DIR, "mutation.html")}`,
];
writeFileSync(join(REPORT_DIR, "scores.txt"), `${lines.join("\n")}\n`);
console.log(lines.join("\n"));
process.exit(verdict.exit);
