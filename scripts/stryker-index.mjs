#!/usr/bin/env node
// The coverage index of CI's generated-mutant part (decision 0076): which unit and integration test
// files execute which lines of the mutated folders' sources, each test file run alone under V8's
// coverage as Stryker's TAP runner runs it, with the seconds it took. It is committed
// (stryker-coverage.json) so that CI's part, which may start before the test part ends, reads it at
// no cost: for each sampled mutant it takes the cheapest test files that execute its line, where a
// probe of 16 candidates from the import graph (decision 0071) reached too few of the core's lines.
// Each source file and test file is kept with the blob id it was indexed at: a line the change moved
// is found through the diff from that blob, a line it added through the lines around it, and Stryker's
// own first run then checks every choice (a mutant the index names a test for that Stryker finds not
// covered is counted and printed). Since decision 0079 a mutant's guarding tests (the probe's ranking:
// beside it, importing it, of its area, naming its words) come before the cheapest.
// scripts/stryker-changed.mjs reads it; test/ci/stryker-index.test.ts tests the rules.
//
//   node scripts/stryker-index.mjs                 builds the index again (every unit and integration
//                                                  test file, 4 at a time: about 40 minutes)
//   node scripts/stryker-index.mjs --jobs 2        2 at a time
//   node scripts/stryker-index.mjs --refresh       only what is stale: the tests it lacks, those edited
//                                                  since, and those that executed a source edited since
//   node scripts/stryker-index.mjs test/follow     these tests again (words of their paths)
//   node scripts/stryker-index.mjs --stale         the sources and tests changed since the index was
//                                                  built, and the tests it lacks; runs nothing
//   node scripts/stryker-index.mjs --check FILE…   runs these test files under coverage again and
//                                                  says where the index disagrees with them
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mutantKey, runUnderCoverage, unrunRanges } from "./stryker-probe.mjs";

/** Where the index lives, from the root. */
export const INDEX_FILE = "stryker-coverage.json";

/** The unit and integration test files, as scripts/test.mjs lists them (system tests are left out). */
export function unitAndIntegration(root) {
  const listed = spawnSync(process.execPath, ["scripts/test.mjs", "--list", "--tier=unit,integration"], {
    cwd: root,
    encoding: "utf8",
  });
  return listed.stdout
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter((words) => words.length === 2 && (words[0] === "unit" || words[0] === "integration"))
    .map(([, file]) => file);
}

/** Position order: line, then column. */
const before = (a, b) => a.line < b.line || (a.line === b.line && a.column < b.column);

/**
 * The lines of a TypeScript text that ran, given each load's uncounted ranges (unrunRanges; a module
 * loaded by several processes ran a line when any of them did): a line holding code ran unless one
 * uncounted range holds all of it, from its first character to its last (a line part of which ran
 * is one a test reaches). Blank lines never count. Returns the line numbers (1-based), ascending.
 */
export function executedLines(text, loads) {
  const ran = [];
  for (const [index, line] of text.split("\n").entries()) {
    const first = line.search(/\S/);
    if (first < 0) continue;
    const last = line.trimEnd().length - 1;
    const from = { line: index + 1, column: first };
    const to = { line: index + 1, column: last };
    const whollyUnrun = (unrun) => unrun.some(({ start, end }) => !before(from, start) && before(to, end));
    if (loads.some((unrun) => !whollyUnrun(unrun))) ran.push(index + 1);
  }
  return ran;
}

/** Ascending line numbers as "1-5,9,12-30" (the index's form: a test reaches long runs of lines). */
export function rangesText(lines) {
  const parts = [];
  let start = null;
  let previous = null;
  for (const line of lines) {
    if (previous !== null && line === previous + 1) {
      previous = line;
      continue;
    }
    if (start !== null) parts.push(start === previous ? `${start}` : `${start}-${previous}`);
    start = line;
    previous = line;
  }
  if (start !== null) parts.push(start === previous ? `${start}` : `${start}-${previous}`);
  return parts.join(",");
}

/** Whether "1-5,9" holds a line. */
export function rangesHold(text, line) {
  return text.split(",").some((part) => {
    const [a, b] = part.split("-").map(Number);
    return b === undefined ? line === a : line >= a && line <= b;
  });
}

/**
 * The lines of the indexed version that stand for each line of the file now, from `git diff -U0` of
 * the indexed version against the file now: a line outside every hunk is the same line, moved by the
 * hunks above it; a line a hunk edited stands for the lines that hunk replaced; a line a hunk only
 * added, for the code lines on both sides of it (a test that runs both most likely runs what lies
 * between). Returns (line) → { lines, all }: `all` when a test must execute every one of `lines`
 * (both sides of an insertion), else any of them.
 */
export function lineMapFromDiff(diff) {
  const hunks = [];
  for (const text of diff.split("\n")) {
    const hunk = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(text);
    if (!hunk) continue;
    const [oldStart, oldCount, newStart, newCount] = [hunk[1], hunk[2] ?? "1", hunk[3], hunk[4] ?? "1"].map(
      Number,
    );
    hunks.push({ oldStart, oldCount, newStart, newCount });
  }
  return (line) => {
    let shift = 0;
    for (const { oldStart, oldCount, newStart, newCount } of hunks) {
      // A hunk that adds nothing (lines only removed) sits after new line newStart.
      const first = newCount === 0 ? newStart + 1 : newStart;
      if (line < first) break;
      if (newCount > 0 && line < newStart + newCount) {
        if (oldCount > 0) {
          return { lines: Array.from({ length: oldCount }, (_, i) => oldStart + i), all: false };
        }
        // Only added: after old line oldStart, before oldStart + 1.
        return { lines: [oldStart, oldStart + 1].filter((old) => old >= 1), all: true };
      }
      shift += oldCount - newCount;
    }
    return { lines: [line + shift], all: false };
  };
}

/**
 * For each mutant, the test files the index says execute its line: `tests` maps a test file to
 * { seconds }, `files` a source file to { lines: { test: "ranges" } } (the index's form), `lineMapOf`
 * a file to its line map (lineMapFromDiff; null when the file is not in the index or its indexed
 * version cannot be read). Returns Map(mutantKey → [test, …]) for the mutants the index knows.
 */
export function indexedTests(mutants, index, lineMapOf) {
  const found = new Map();
  for (const mutant of mutants) {
    const entry = index.files[mutant.file];
    const map = entry ? lineMapOf(mutant.file) : null;
    if (!entry || !map) continue;
    const { lines, all } = map(mutant.line);
    const executes = (ranges) =>
      all ? lines.every((line) => rangesHold(ranges, line)) : lines.some((line) => rangesHold(ranges, line));
    found.set(
      mutantKey(mutant),
      Object.entries(entry.lines)
        .filter(([test, ranges]) => test in index.tests && executes(ranges))
        .map(([test]) => test),
    );
  }
  return found;
}

/**
 * The sampled mutants the index cannot place (decision 0082): those of a file it holds that changed
 * since it was built (`changed`, a set of files) whose line no indexed test executes (`candidates`,
 * as indexedTests gives them: no entry when the file's indexed version cannot be read, none for a
 * line it added or moved beyond what the diff tells). On a file unchanged since, a line with no
 * indexed test is one no test executes: not for want of a mapping.
 */
export function unmappedMutants(mutants, index, candidates, changed) {
  return mutants.filter(
    (mutant) =>
      index.files[mutant.file] &&
      changed.has(mutant.file) &&
      (candidates.get(mutantKey(mutant)) ?? []).length === 0,
  );
}

/** How many lines "1-5,9" holds. */
const linesIn = (ranges) =>
  ranges.split(",").reduce((sum, part) => {
    const [a, b] = part.split("-").map(Number);
    return sum + (b === undefined ? 1 : b - a + 1);
  }, 0);

/**
 * A file's candidates for the probe when the index holds it: the tests new to the index (`fresh`: it
 * cannot know what they execute), and, when `unmapped` (unmappedMutants) holds one of its mutants,
 * every test the index lists for the file at any line (decision 0082): one of those most likely
 * executes a line the change added or moved, and only a run can tell which. `ranked` is the probe's
 * ranking of the tests that reach the file (testCandidates, for the unmapped mutants' words: those
 * importing it, then its area, then its words, the guarding order of decision 0079), [{ test,
 * distance }]; the index's tests it lacks (no static import reaches the file) come after it, those
 * that execute most of the file first. The probe takes them in this order within its --max-probes.
 */
export function probeCandidatesOf(file, ranked, { index, fresh, unmapped }) {
  const lines = index.files[file]?.lines ?? {};
  const listed = unmapped.some((mutant) => mutant.file === file)
    ? new Set(Object.keys(lines).filter((test) => test in index.tests))
    : new Set();
  const inRanking = new Set(ranked.map(({ test }) => test));
  const unranked = [...listed]
    .filter((test) => !inRanking.has(test))
    .sort((a, b) => linesIn(lines[b]) - linesIn(lines[a]) || (a < b ? -1 : 1))
    .map((test) => ({ test, distance: null }));
  return [...ranked.filter(({ test }) => fresh.has(test) || listed.has(test)), ...unranked];
}

/**
 * Each mutant's guarding tests (decision 0079): the first `perMutant` of the tests that execute its
 * line (`candidates`, as indexedTests gives them) in `orderOf(key)`'s order, the probe's ranking of
 * the tests that reach its file (testCandidates: those that import it or lie beside it, then those of
 * its area, then those whose text names most of its line's rare words). The cheapest tests that
 * execute a line are often not the ones written for it; those the probe ranks first mostly are.
 * A test the order does not hold (no static import reaches the file) guards nothing.
 * Returns Map(mutantKey → [test, …]).
 */
export function guardingTests(candidates, orderOf, perMutant = 2) {
  return new Map(
    [...candidates].map(([key, tests]) => {
      const executing = new Set(tests);
      return [
        key,
        orderOf(key)
          .filter((test) => executing.has(test))
          .slice(0, perMutant),
      ];
    }),
  );
}

/**
 * One greedy round: tests of `pool` (mutantKey → the tests that may serve it) are taken one at a time
 * into `chosen` while a mutant still wants one (`want`, mutantKey → how many more), each time the one
 * that gives most of what is wanted for its seconds (ties: the fewer seconds, then the name); one that
 * would spend more than `room` seconds in all, or that `accept(test, room left after it)` refuses, is
 * passed over. Returns the seconds spent.
 */
function greedyRound(pool, want, secondsOf, chosen, room, accept = () => true) {
  const passedOver = new Set();
  let spent = 0;
  for (;;) {
    const gains = new Map();
    for (const [key, tests] of pool) {
      if ((want.get(key) ?? 0) <= 0) continue;
      for (const test of tests) {
        if (chosen.includes(test) || passedOver.has(test)) continue;
        gains.set(test, (gains.get(test) ?? 0) + 1);
      }
    }
    if (gains.size === 0) return spent;
    const [best] = [...gains].sort(
      ([a, gainA], [b, gainB]) =>
        gainB / Math.max(secondsOf(b), 0.1) - gainA / Math.max(secondsOf(a), 0.1) ||
        secondsOf(a) - secondsOf(b) ||
        (a < b ? -1 : 1),
    );
    const [test] = best;
    const left = room - spent - secondsOf(test);
    if (left < 0 || !accept(test, left)) {
      passedOver.add(test);
      continue;
    }
    chosen.push(test);
    spent += secondsOf(test);
    for (const [key, tests] of pool) if (tests.includes(test)) want.set(key, (want.get(key) ?? 0) - 1);
  }
}

/**
 * The test files for each mutant: `perMutant` of the tests that execute its line (or all of them when
 * fewer), a test file a second chance to kill what another lets survive, within `maxSeconds` (the
 * index's seconds) for all. Rounds, each greedy (greedyRound: most of what is wanted for its seconds):
 * with `guards` (guardingTests, decision 0079), first each mutant's guarding tests, perMutant a
 * mutant, where a guard is taken only while the cheapest tests could still give every mutant one test
 * (no more left with none than without it); then the cheapest, one a mutant; then the cheapest again,
 * up to perMutant (a chosen test counts for every mutant it executes). Without `guards`, the cheapest
 * rounds alone (decision 0076). `candidates` maps mutantKey to the tests executing it (indexedTests),
 * `secondsOf` a test to its seconds. Returns { tests, seconds, short, guarded }: the tests chosen
 * (sorted), their seconds, the keys of the mutants that got none of theirs within the budget, and of
 * those that got one of their guarding tests.
 */
export function cheapestTests(
  candidates,
  secondsOf,
  { perMutant = 2, maxSeconds = Number.POSITIVE_INFINITY, guards } = {},
) {
  const chosen = [];
  let seconds = 0;
  const wanting = (pool, level, taken) =>
    new Map(
      [...pool].map(([key, tests]) => [
        key,
        Math.min(level, tests.length) - tests.filter((test) => taken.includes(test)).length,
      ]),
    );
  const withNone = (taken) =>
    [...candidates].filter(([, tests]) => tests.length > 0 && !tests.some((test) => taken.includes(test)))
      .length;
  /** How many mutants the cheapest would leave with no test, from `taken` and within `room` seconds. */
  const leftWithNone = (taken, room) => {
    const trial = [...taken];
    greedyRound(candidates, wanting(candidates, 1, trial), secondsOf, trial, room);
    return withNone(trial);
  };
  if (guards) {
    seconds += greedyRound(
      guards,
      wanting(guards, perMutant, chosen),
      secondsOf,
      chosen,
      maxSeconds,
      (test, left) => leftWithNone([...chosen, test], left) <= leftWithNone(chosen, left + secondsOf(test)),
    );
  }
  seconds += greedyRound(candidates, wanting(candidates, 1, chosen), secondsOf, chosen, maxSeconds - seconds);
  seconds += greedyRound(
    candidates,
    wanting(candidates, perMutant, chosen),
    secondsOf,
    chosen,
    maxSeconds - seconds,
  );
  const short = [...candidates]
    .filter(([, tests]) => tests.length > 0 && !tests.some((test) => chosen.includes(test)))
    .map(([key]) => key);
  const guarded = [...(guards ?? [])]
    .filter(([, tests]) => tests.some((test) => chosen.includes(test)))
    .map(([key]) => key);
  return { tests: [...chosen].sort(), seconds, short, guarded };
}

const git = (root, ...args) =>
  spawnSync("git", args, { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });

/** A file's blob id as it is in the working tree (what the index keys a version by). */
export const blobOf = (root, file) => git(root, "hash-object", "--", file).stdout.trim();

/** Many files' blob ids at once (one git process, not one a file): Map(file → blob). */
export function blobsOf(root, files) {
  const listed = spawnSync("git", ["hash-object", "--stdin-paths"], {
    cwd: root,
    input: files.join("\n"),
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const blobs = listed.stdout.split("\n");
  return new Map(files.map((file, at) => [file, blobs[at]]));
}

/**
 * The line map of a file from its indexed version (`blob`) to the file now: the same lines when the
 * blob is unchanged; through the diff when it changed; null when that version cannot be read (an
 * index built from files never committed, a history rewritten since, an entry with no blob id): its
 * lines are unknown, and the part probes its mutants (decision 0082) rather than stop.
 */
export function lineMapOf(root, file, blob) {
  if (blobOf(root, file) === blob) return (line) => ({ lines: [line], all: false });
  // Only an object id: anything else would be read by git as an option or a revision.
  if (typeof blob !== "string" || !/^[0-9a-f]{40,64}$/.test(blob)) return null;
  const old = git(root, "cat-file", "blob", blob);
  if (old.error || old.status !== 0) return null;
  const dir = mkdtempSync(join(tmpdir(), "possekit-stryker-index-"));
  try {
    writeFileSync(join(dir, "indexed.ts"), old.stdout);
    const diff = git(root, "diff", "--no-index", "--no-color", "-U0", "--", join(dir, "indexed.ts"), file);
    // 0: the same text, 1: they differ; anything else (the file gone) maps nothing.
    return diff.status === 0 || diff.status === 1 ? lineMapFromDiff(diff.stdout) : null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The index as it is kept on disk: the tests as one list ([name, seconds, blob]) and each source's
 * lines as { ranges: [the tests' places in that list] }, since many tests execute the same lines of a
 * file (its imports and declarations alone): about a tenth of the size of one entry per test.
 * In memory: { tests: { test: { seconds, blob } }, files: { file: { blob, lines: { test: ranges } } } }.
 */
export function packIndex({ tests, files, ...rest }) {
  const names = Object.keys(tests).sort();
  const place = new Map(names.map((name, at) => [name, at]));
  const packed = {};
  for (const [file, { blob, lines }] of Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const runs = {};
    for (const [test, ranges] of Object.entries(lines)) {
      if (!place.has(test)) continue;
      runs[ranges] = [...(runs[ranges] ?? []), place.get(test)];
    }
    packed[file] = { blob, runs };
  }
  return {
    ...rest,
    tests: names.map((name) => [name, tests[name].seconds, tests[name].blob]),
    files: packed,
  };
}

/** The index as packIndex keeps it, back in memory's form. */
export function unpackIndex({ tests, files, ...rest }) {
  const unpacked = {};
  for (const [file, { blob, runs }] of Object.entries(files)) {
    const lines = {};
    for (const [ranges, places] of Object.entries(runs))
      for (const at of places) lines[tests[at][0]] = ranges;
    unpacked[file] = { blob, lines };
  }
  return {
    ...rest,
    tests: Object.fromEntries(tests.map(([name, seconds, blob]) => [name, { seconds, blob }])),
    files: unpacked,
  };
}

/** Reads the index, or null when there is none. */
export function readIndex(root) {
  const path = join(root, INDEX_FILE);
  return existsSync(path) ? unpackIndex(JSON.parse(readFileSync(path, "utf8"))) : null;
}

/** What changed since the index was built: { sources, tests, missing } (paths). */
export function staleness(root, index, sources, tests) {
  const blobs = blobsOf(root, [...sources, ...tests]);
  return {
    sources: sources.filter((file) => index.files[file] && index.files[file].blob !== blobs.get(file)),
    unindexed: sources.filter((file) => !index.files[file]),
    tests: tests.filter((test) => index.tests[test] && index.tests[test].blob !== blobs.get(test)),
    missing: tests.filter((test) => !index.tests[test]),
  };
}

/** One test file's entry: the lines of each source it executes ("ranges"), and its seconds. */
async function indexOne(root, test, sources, texts) {
  // A test that fails beside the others gets a second run before it is left out (as in the probe).
  const run =
    (await runUnderCoverage(test, { root, timeoutMs: 600_000 })) ??
    (await runUnderCoverage(test, { root, timeoutMs: 600_000 }));
  if (run === null) return null;
  const loads = new Map();
  for (const { file, unrun } of unrunRanges(run.dumps, sources, root)) {
    loads.set(file, [...(loads.get(file) ?? []), unrun]);
  }
  const lines = {};
  for (const [file, fileLoads] of loads) {
    const ran = executedLines(texts.get(file), fileLoads);
    if (ran.length > 0) lines[file] = rangesText(ran);
  }
  return { seconds: Math.round(run.seconds * 10) / 10, lines };
}

const OPTIONS = ["--refresh", "--stale", "--check", "--jobs", "--help"];

/**
 * The one line naming a mistaken option, or null: without it, a typo (`--hepl`) was read as no
 * option at all and started a whole build, about 40 minutes, writing over the committed index.
 */
export function optionMistake(args) {
  const unknown = args.find((arg) => arg.startsWith("-") && !OPTIONS.includes(arg));
  if (unknown)
    return `Unknown option ${unknown}: write one of ${OPTIONS.join(", ")} (--help says what each does)`;
  const jobsAt = args.indexOf("--jobs");
  if (jobsAt >= 0 && !(Number(args[jobsAt + 1]) >= 1))
    return `--jobs needs a number of test files at a time, at least 1: write --jobs 2`;
  return null;
}

/** The usage lines of this file's header. */
function usage() {
  const header = readFileSync(new URL(import.meta.url), "utf8").split("\n");
  return header
    .filter((line) => line.startsWith("//   ") || line.startsWith("//        "))
    .map((line) => line.slice(3))
    .join("\n");
}

async function main() {
  const args = process.argv.slice(2);
  if (args.includes("--help")) {
    console.log(usage());
    process.exit(0);
  }
  const mistake = optionMistake(args);
  if (mistake) {
    console.error(mistake);
    process.exit(2);
  }
  const { FOLDERS } = await import("../stryker.config.mjs");
  const { isMutable } = await import("./stryker-plan.mjs");
  const root = join(import.meta.dirname, "..");
  const jobsAt = args.indexOf("--jobs");
  const jobs = jobsAt >= 0 ? Number(args[jobsAt + 1]) : 4;
  const sources = git(root, "ls-files", ...Object.keys(FOLDERS))
    .stdout.split("\n")
    .filter((file) => file && isMutable(file, FOLDERS));
  const texts = new Map(sources.map((file) => [file, readFileSync(join(root, file), "utf8")]));
  const allTests = unitAndIntegration(root);

  if (args.includes("--stale")) {
    const index = readIndex(root);
    if (!index) {
      console.log(`No ${INDEX_FILE}: build it with node scripts/stryker-index.mjs`);
      process.exit(1);
    }
    const stale = staleness(root, index, sources, allTests);
    console.log(`${INDEX_FILE}: built at ${index.built.commit.slice(0, 12)} on ${index.built.date}`);
    for (const [what, list] of Object.entries(stale))
      console.log(`${what}: ${list.length}${list.length ? `\n  ${list.join("\n  ")}` : ""}`);
    process.exit(0);
  }

  if (args.includes("--check")) {
    // The index against fresh runs of the named tests: the lines each one executes now.
    const index = readIndex(root);
    const named = args.filter((arg) => !arg.startsWith("--"));
    let disagreements = 0;
    for (const test of named) {
      const fresh = await indexOne(root, test, sources, texts);
      const kept = index?.tests[test]
        ? Object.fromEntries(
            Object.entries(index.files).flatMap(([file, { lines }]) =>
              lines[test] ? [[file, lines[test]]] : [],
            ),
          )
        : {};
      if (fresh === null) {
        console.log(`${test}: failed`);
        disagreements += 1;
        continue;
      }
      const files = new Set([...Object.keys(fresh.lines), ...Object.keys(kept)]);
      const differ = [...files].filter((file) => fresh.lines[file] !== kept[file]);
      disagreements += differ.length;
      console.log(
        `${test}: ${fresh.seconds} s, ${files.size} source file(s), ${differ.length} differ${differ.length ? `: ${differ.join(", ")}` : ""}`,
      );
    }
    process.exit(disagreements > 0 ? 1 : 0);
  }

  const words = args.filter((arg, at) => !arg.startsWith("--") && args[at - 1] !== "--jobs");
  const previous = readIndex(root);
  const stale = previous ? staleness(root, previous, sources, allTests) : null;
  // --refresh: the tests the index lacks, those edited since, and those that executed a source
  // edited since (their lines there moved); the other tests' entries stand.
  const changedSources = new Set(stale?.sources ?? []);
  const tests = args.includes("--refresh")
    ? allTests.filter(
        (test) =>
          !previous?.tests[test] ||
          stale?.tests.includes(test) ||
          [...changedSources].some((file) => previous.files[file]?.lines[test]),
      )
    : words.length > 0
      ? allTests.filter((test) => words.some((word) => test.includes(word)))
      : allTests;
  const keep = args.includes("--refresh") || words.length > 0 ? previous : null;
  const results = new Map();
  const failed = [];
  const started = Date.now();
  /** The index from what stands of the one before and this build's results so far, written. */
  const save = () => {
    const blobs = blobsOf(root, [...sources, ...results.keys()]);
    const index = {
      about:
        "Which test files execute which lines of stryker.config.mjs's folders (decision 0076): node scripts/stryker-index.mjs builds it, --refresh when stale",
      built: {
        commit: git(root, "rev-parse", "HEAD").stdout.trim(),
        date: new Date().toISOString().slice(0, 10),
        jobs,
      },
      tests: Object.fromEntries(
        Object.entries(keep?.tests ?? {}).filter(
          ([test]) => allTests.includes(test) && !tests.includes(test),
        ),
      ),
      files: {},
    };
    for (const [test, { seconds }] of results) index.tests[test] = { seconds, blob: blobs.get(test) };
    for (const file of sources) {
      const lines = {};
      // The other tests' lines stand only while the source is the version they were taken on.
      const kept = keep?.files[file]?.blob === blobs.get(file) ? keep.files[file].lines : {};
      for (const [test, ranges] of Object.entries(kept)) if (test in index.tests) lines[test] = ranges;
      for (const [test, entry] of results) if (entry.lines[file]) lines[test] = entry.lines[file];
      index.files[file] = { blob: blobs.get(file), lines };
    }
    // One line a source file's run (its ranges and the tests that share them), so that a rebuild's
    // diff says which lines changed for whom.
    const text = JSON.stringify(packIndex(index), null, 1).replace(
      /\[\n\s*([^[\]{}]*?)\n\s*\]/g,
      (_, inner) => `[${inner.replace(/\n\s*/g, " ")}]`,
    );
    writeFileSync(join(root, INDEX_FILE), `${text}\n`);
  };
  let next = 0;
  const worker = async () => {
    while (next < tests.length) {
      const test = tests[next++];
      const entry = await indexOne(root, test, sources, texts);
      if (entry === null) failed.push(test);
      else results.set(test, entry);
      const done = results.size + failed.length;
      console.log(
        `${done}/${tests.length} ${test}: ${entry === null ? "failed, left out" : `${entry.seconds} s, ${Object.keys(entry.lines).length} source file(s)`}`,
      );
      // Now and then, so that a build stopped half-way leaves what it measured (--refresh goes on).
      if (done % 20 === 0) save();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, worker));
  save();
  console.log(
    `${INDEX_FILE}: ${results.size} test file(s) in ${Math.round((Date.now() - started) / 1000)} s, ${jobs} at a time; ${failed.length} failed, left out${failed.length ? `: ${failed.join(", ")}` : ""}`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
