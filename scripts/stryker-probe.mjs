// Which test files CI's generated-mutant run gives Stryker (decision 0071): those that really execute
// the sampled mutants' code, found by running candidate test files once each under V8's coverage
// (NODE_V8_COVERAGE), not those that merely import the file. Candidates come from the import graph
// (test helpers under test/ included, so a test that starts the host through a helper reaches the
// core), nearest first; the probe keeps a candidate only when it executes a sampled mutant that the
// tests kept so far do not. scripts/stryker-changed.mjs runs it; test/ci/stryker-probe.test.ts tests it.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { SourceMap } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** A mutant's identity in a run (its place, operator and replacement), as the sample keys it. */
export const mutantKey = (m) =>
  `${m.file}:${m.line}:${m.column}-${m.endLine}:${m.endColumn} ${m.mutator} ${m.replacement}`;

/** The folders under src/ a file lies in, deepest first: src/a/b/c.ts → ["a/b", "a"]. */
function areasOf(file) {
  const parts = file
    .replace(/^src\//, "")
    .split("/")
    .slice(0, -1);
  return parts.map((_, index) => parts.slice(0, parts.length - index).join("/"));
}

/** The words of a module's name: src/syndication/runs/follow-ups.ts → ["follow"] (4 letters or more). */
const nameWords = (module) =>
  (module.split("/").pop() ?? "")
    .replace(/\.ts$/, "")
    .split(/[^A-Za-z]+/)
    .filter((word) => word.length >= 4);

/**
 * The words of the mutated code (identifiers, and the words of its strings, 4 letters or more): a test
 * that names them (a test of the "held" path says "held") is likelier to execute that code. `source` is
 * the file's text; each mutant contributes its first lines (at most 3).
 */
export function wordsOfMutants(source, mutants) {
  const lines = source.split("\n");
  const words = new Set();
  for (const { line, endLine } of mutants) {
    for (const text of lines.slice(line - 1, Math.min(endLine, line + 2))) {
      for (const [word] of text.matchAll(/[A-Za-z_$][\w$]{3,}/g)) words.add(word);
    }
  }
  return words;
}

/**
 * How much a test's text has of the words, each weighed by how rare it is among the candidates (a
 * word every candidate holds, such as `await`, weighs nothing): Σ log(n / tests holding it).
 */
function relevance(texts, words) {
  // Whole words: "held" is not in "holds" nor in "beheld".
  const wordsIn = (text) => new Set(text.match(/[A-Za-z_$][\w$]*/g) ?? []);
  const holds = new Map(
    [...texts].map(([test, text]) => {
      const own = wordsIn(text);
      return [test, new Set([...words].filter((word) => own.has(word)))];
    }),
  );
  const count = new Map(
    [...words].map((word) => [word, [...holds.values()].filter((set) => set.has(word)).length]),
  );
  return new Map(
    [...holds].map(([test, held]) => [
      test,
      [...held].reduce((sum, word) => sum + Math.log(texts.size / (count.get(word) ?? 1)), 0),
    ]),
  );
}

/**
 * Every unit and integration test file that reaches `file` through static imports, at most `depth`
 * modules away: [{ test, distance }]. Those that import it first; then those that reach it through
 * other modules: the tests of its area first (below), then those whose text holds most of the mutated
 * code's rare words (`words` and `textOf`, when given: past the first importers, most tests reach the
 * core through the host, so how many modules lie between says little), then the nearest, then unit
 * tests, then by name.
 * `modules` maps each non-test module (src/ and the helpers under test/) to what it imports.
 */
export function testCandidates(file, tests, modules, { depth = 8, words, textOf } = {}) {
  const areas = areasOf(file);
  // The module's area: the test folders named as its folders under src/ (test/syndication/ for
  // src/syndication/runs/x.ts), or as a word of the names of the modules that import it (test/follow/
  // for a module that follow-ups.ts imports): a test there is likelier to take the paths that reach it.
  const named = new Set(
    [file, ...[...modules].filter(([, imports]) => imports.has(file)).map(([module]) => module)].flatMap(
      nameWords,
    ),
  );
  const areaRank = (test) => {
    if (areas.some((area) => test.startsWith(`test/${area}/`) || test.startsWith(`src/${area}/`))) return 0;
    const folder = test.split("/")[1] ?? "";
    return test.startsWith("test/") && folder.split("-").some((word) => named.has(word)) ? 0 : 1;
  };
  const taken = new Set();
  let level = new Set([file]);
  const seen = new Set(level);
  const reached = [];
  for (let distance = 0; distance <= depth && level.size > 0; distance++) {
    const here = [...tests]
      .filter(([test, imports]) => !taken.has(test) && [...imports].some((module) => level.has(module)))
      .map(([test]) => test);
    for (const test of here) {
      taken.add(test);
      reached.push({ test, distance });
    }
    const up = new Set();
    for (const [module, imports] of modules) {
      if (!seen.has(module) && [...imports].some((imported) => level.has(imported))) up.add(module);
    }
    for (const module of up) seen.add(module);
    level = up;
  }
  const weight =
    words && textOf && words.size > 0
      ? relevance(new Map(reached.map(({ test }) => [test, textOf(test)])), words)
      : new Map();
  const rank = (test) => weight.get(test) ?? 0;
  return reached.sort(
    (a, b) =>
      Number(a.distance > 0) - Number(b.distance > 0) ||
      areaRank(a.test) - areaRank(b.test) ||
      rank(b.test) - rank(a.test) ||
      a.distance - b.distance ||
      Number(!a.test.startsWith("src/")) - Number(!b.test.startsWith("src/")) ||
      (a.test < b.test ? -1 : 1),
  );
}

/** A position's order: line, then column (both of the original TypeScript). */
const before = (a, b) => a.line < b.line || (a.line === b.line && a.column < b.column);

/**
 * The TypeScript ranges V8 counted 0 in each module of `files` (paths from `root`) that one process
 * loaded, from the JSON files NODE_V8_COVERAGE writes (parsed): V8 counts the JavaScript esbuild made,
 * and each uncounted block is taken back to the TypeScript through the inline source map Node keeps
 * beside the coverage ("source-map-cache"). Returns a list of { file, unrun: [{ start, end }] }, one
 * for each module a dump loaded (positions { line (1-based), column (0-based) }, `end` exclusive).
 */
export function unrunRanges(dumps, files, root) {
  const byUrl = new Map([...new Set(files)].map((file) => [pathToFileURL(resolve(root, file)).href, file]));
  const loaded = [];
  for (const dump of dumps) {
    const maps = dump["source-map-cache"] ?? {};
    for (const script of dump.result ?? []) {
      const file = byUrl.get(script.url);
      const cached = maps[script.url];
      if (!file || !cached?.data || !cached.lineLengths) continue;
      const map = new SourceMap(cached.data);
      // Offsets of the generated JavaScript's lines, to turn V8's offsets into line and column.
      const starts = [0];
      for (const length of cached.lineLengths) starts.push(starts[starts.length - 1] + length + 1);
      const original = (offset) => {
        let line = 0;
        while (line + 1 < starts.length && starts[line + 1] <= offset) line += 1;
        const entry = map.findEntry(line, offset - starts[line]);
        return entry && entry.originalLine !== undefined
          ? { line: entry.originalLine + 1, column: entry.originalColumn }
          : undefined;
      };
      const unrun = [];
      for (const { ranges } of script.functions) {
        for (const { startOffset, endOffset, count } of ranges) {
          if (count !== 0) continue;
          const start = original(startOffset);
          const last = original(Math.max(startOffset, endOffset - 1));
          if (start && last) unrun.push({ start, end: { line: last.line, column: last.column + 1 } });
        }
      }
      loaded.push({ file, unrun });
    }
  }
  return loaded;
}

/** Whether a position lies in a range that V8 counted 0. */
export const inUnrun = (at, unrun) => unrun.some(({ start, end }) => !before(at, start) && before(at, end));

/**
 * The mutants whose code ran in one process's V8 coverage (unrunRanges): a mutant ran when its module
 * was loaded and its first character lies in no block that counted 0. Returns the set of mutantKey
 * of those that ran. `root` is the tree the mutants' files are in.
 */
export function mutantsExecuted(dumps, mutants, root) {
  const ran = new Set();
  for (const { file, unrun } of unrunRanges(
    dumps,
    mutants.map((mutant) => mutant.file),
    root,
  )) {
    for (const mutant of mutants) {
      if (mutant.file !== file) continue;
      if (!inUnrun({ line: mutant.line, column: mutant.column }, unrun)) ran.add(mutantKey(mutant));
    }
  }
  return ran;
}

/** The project's TypeScript hooks, as Stryker's TAP runner and scripts/test.mjs load them. */
const REGISTER = pathToFileURL(join(import.meta.dirname, "typescript", "register.mjs")).href;

/**
 * Runs one test file as Stryker's TAP runner does (node with the project's TypeScript hooks), under
 * V8's coverage: { dumps, seconds } (the coverage files, parsed, and the wall seconds it took), or
 * null when it failed (Stryker's first run would fail on it: a test that fails on the tree is the
 * test part's to report). A run ends after 3 minutes (a failure), so that a hanging test cannot hold
 * the part past its bound.
 */
export async function runUnderCoverage(test, { root, timeoutMs = 180_000 }) {
  const dir = mkdtempSync(join(tmpdir(), "possekit-stryker-probe-"));
  const started = Date.now();
  try {
    const child = spawn(process.execPath, ["--import", REGISTER, "--liftoff-only", test], {
      cwd: root,
      env: { ...process.env, NODE_V8_COVERAGE: dir },
      stdio: "ignore",
      timeout: timeoutMs,
    });
    const status = await new Promise((done) => {
      child.on("error", () => done(-1));
      child.on("close", (code) => done(code));
    });
    if (status !== 0) return null;
    const seconds = (Date.now() - started) / 1000;
    const dumps = readdirSync(dir)
      .filter((name) => name.endsWith(".json"))
      .map((name) => JSON.parse(readFileSync(join(dir, name), "utf8")));
    return { dumps, seconds };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Which of the mutants one test file executes (runUnderCoverage), or null when it failed. */
export async function probeTest(test, mutants, { root, timeoutMs = 180_000 }) {
  const run = await runUnderCoverage(test, { root, timeoutMs });
  return run === null ? null : mutantsExecuted(run.dumps, mutants, root);
}

/**
 * The test files for each file's sampled mutants. Files with the most mutants first; each file's
 * candidates (testCandidates) in order: a candidate is probed (run once under coverage, `probe(test)`
 * → a promise of the set of mutantKey it executed, or null when it failed; each test probed at most
 * once) and kept when it executes one of the file's mutants not yet executed by a test kept for any
 * file. A file stops at `maxTests` integration tests (and `maxUnit` unit tests, which cost about a
 * second) or when every mutant of it is executed; the whole choice stops after `maxProbes` probes, so
 * the part's time has a bound, and a file probes at most its fair share of what is left (the probes
 * left over the files left, at least one), so that every file is probed. Probes run `jobs` at a time, the next candidates of a file together (a
 * test file mostly waits: its database, its server, its clock), and the choice is then made in the
 * candidates' order, so that it depends on what the tests executed and never on which ended first.
 * Returns { byFile: Map(file → { tests, probed, candidates, unexecuted }), tests, probes }: `tests`
 * every kept file, `unexecuted` the file's mutants no kept test executes.
 */
export async function chooseTests(
  mutantsByFile,
  candidatesByFile,
  probe,
  { maxTests = 4, maxUnit, maxProbes = 12, jobs = 1 } = {},
) {
  const unitCap = maxUnit ?? 2 * maxTests;
  const results = new Map();
  const kept = [];
  const byFile = new Map();
  const files = [...mutantsByFile.keys()].sort(
    (a, b) => (mutantsByFile.get(b)?.length ?? 0) - (mutantsByFile.get(a)?.length ?? 0) || (a < b ? -1 : 1),
  );
  for (const [place, file] of files.entries()) {
    // Each file's fair share of the probes left, so that the file with the most mutants cannot spend
    // the whole budget and leave the others unprobed (what a file does not use passes to the next).
    const share = Math.max(1, Math.ceil((maxProbes - results.size) / (files.length - place)));
    const before = results.size;
    const keys = new Set((mutantsByFile.get(file) ?? []).map(mutantKey));
    const executed = new Set();
    for (const test of kept) for (const key of results.get(test) ?? []) if (keys.has(key)) executed.add(key);
    const mine = kept.filter((test) => [...(results.get(test) ?? [])].some((key) => keys.has(key)));
    const candidates = candidatesByFile.get(file) ?? [];
    let probed = 0;
    for (const [index, { test }] of candidates.entries()) {
      if (executed.size === keys.size) break;
      const units = mine.filter((t) => t.startsWith("src/")).length;
      const others = mine.length - units;
      if (others >= maxTests && units >= unitCap) break;
      if ((test.startsWith("src/") ? units >= unitCap : others >= maxTests) || mine.includes(test)) continue;
      if (!results.has(test)) {
        // What the budget and the file's share leave.
        const left = Math.min(maxProbes - results.size, share - (results.size - before));
        if (left <= 0) break;
        // This one and the next of its kind not probed yet, within that.
        const room = Math.min(jobs, left);
        const batch = candidates
          .slice(index)
          .map((candidate) => candidate.test)
          .filter((other) => !results.has(other) && other.startsWith("src/") === test.startsWith("src/"))
          .slice(0, room);
        const ran = await Promise.all(batch.map((other) => probe(other)));
        for (const [at, other] of batch.entries()) results.set(other, ran[at] ?? null);
      }
      probed += 1;
      const ran = results.get(test);
      const adds = [...(ran ?? [])].filter((key) => keys.has(key) && !executed.has(key));
      if (adds.length === 0) continue;
      for (const key of adds) executed.add(key);
      mine.push(test);
      if (!kept.includes(test)) kept.push(test);
    }
    const unexecuted = (mutantsByFile.get(file) ?? []).filter((mutant) => !executed.has(mutantKey(mutant)));
    byFile.set(file, { tests: mine, probed, candidates: candidates.length, unexecuted });
  }
  return { byFile, tests: [...kept].sort(), probes: results.size };
}
