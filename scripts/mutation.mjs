#!/usr/bin/env node
// `npm run test:mutation`: for each mutant in test/mutation/mutants.json (one small change that
// breaks one promise), copies the tree to a scratch folder, applies the change, runs only the test
// files that guard that promise, and reports KILLED (a test failed, as it should) or SURVIVED (every
// test passed: the promise is unguarded). Exits 1 when a mutant survives or cannot be applied, so
// that the list stays valid as the code changes: a search text must occur exactly once.
//
//   npm run test:mutation                   every mutant
//   npm run test:mutation -- csrf-prefix    only mutants whose id contains one of these words
//   npm run test:mutation -- --exact a b    only the mutants with exactly these ids (CI's choice)
//   MUTATION_BASELINE=1 npm run test:mutation   first checks that the guarding tests pass unchanged
//                                               (CI needs no baseline: npm test has just passed)
//
// What one mutant costs, and why it costs no more (docs/testing.md, "Mutants"):
// - Each of the MUTATION_JOBS lanes (2) keeps one scratch copy of the tree for all its mutants; before
//   each mutant rsync makes it equal to the tree again (undoing the last mutant's change and anything
//   its tests wrote), for a tenth of the CPU of a fresh copy. Without rsync: a fresh copy per mutant.
// - The tests' database snapshot is made once for the tree and handed to every mutant, except one
//   that changes a file the snapshot is made from (a migration): that copy makes its own.
// - A mutant stops at its first failing test: the runner's output is read as it comes, and the run
//   is ended once a test has failed (that is what KILLED means; the rest could only fail more).
//   Files run one at a time, the file that killed this mutant last time first (remembered in
//   MUTATION_HISTORY, a JSON file in the temp folder), so a second file runs only when needed.
// - Each test run is limited to MUTATION_TIMEOUT_MS; a mutant ended by that limit says so
//   ("KILLED ... by the time limit") and is counted apart in the summary.
//
//   node scripts/mutation.mjs --only id…   the same as --exact (sample runs, e.g. to time mutants)
//   node scripts/mutation.mjs --check      only checks that every mutant applies (npm run lint)
import { spawn, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(import.meta.url), "../..");
const LIST = "test/mutation/mutants.json";
const jobs = Math.max(1, Number(process.env.MUTATION_JOBS ?? 2));
const timeoutMs = Number(process.env.MUTATION_TIMEOUT_MS ?? 240_000);
const historyFile = process.env.MUTATION_HISTORY || join(tmpdir(), "possekit-mutation-history.json");
/**
 * Not copied: node_modules is linked instead; the rest is not needed to run tests. docs/ is copied:
 * tests run its examples (docs/copies.md), and a mutant may break one. Nor .stryker-tmp and reports:
 * CI's generated mutants' part (decision 0069) copies the tree there and removes the copy while this
 * part runs beside it, and a file vanishing under rsync would fail the copy.
 */
const SKIPPED = ["node_modules", ".git", "bench", "data", "dist", ".stryker-tmp", "reports"];

const all = JSON.parse(readFileSync(join(root, LIST), "utf8"));
const exact = process.argv.includes("--exact") || process.argv.includes("--only");
const wanted = process.argv
  .slice(2)
  .filter((word) => word !== "--exact" && word !== "--only" && word !== "--check");
const mutants = all.filter(
  (m) => wanted.length === 0 || wanted.some((word) => (exact ? m.id === word : m.id.includes(word))),
);
if (mutants.length === 0) {
  console.error(`No mutant in ${LIST} matches ${wanted.join(", ")}.`);
  process.exit(1);
}

/** Why a mutant cannot be applied to today's code, or null when it can. */
function invalid(mutant) {
  for (const field of ["id", "promise", "file", "search"]) {
    if (typeof mutant[field] !== "string" || mutant[field] === "") return `has no ${field}`;
  }
  // An empty replacement deletes the search text.
  if (typeof mutant.replace !== "string") return "has no replace (a string; empty to delete)";
  if (!Array.isArray(mutant.tests) || mutant.tests.length === 0) return "names no test files";
  if (mutant.search === mutant.replace) return "replaces its search text with itself";
  const ids = all.filter((other) => other.id === mutant.id).length;
  if (ids > 1) return `shares its id with ${ids - 1} other mutant(s)`;
  const file = join(root, mutant.file);
  if (!existsSync(file)) return `names ${mutant.file}, which does not exist`;
  const occurrences = readFileSync(file, "utf8").split(mutant.search).length - 1;
  if (occurrences !== 1)
    return `its search text occurs ${occurrences} times in ${mutant.file} (it must occur exactly once): update the mutant`;
  for (const test of mutant.tests) {
    if (!test.endsWith(".test.ts") || !existsSync(join(root, test)))
      return `names the test file ${test}, which does not exist`;
  }
  return null;
}

// --check: only that every mutant in the list still applies to today's code (npm run lint runs it,
// so that a change which moves a mutant's code fails at once, not when CI picks that mutant).
if (process.argv.includes("--check")) {
  const problems = all.flatMap((mutant) => {
    const why = invalid(mutant);
    return why ? [`${mutant.id}: ${why}`] : [];
  });
  for (const problem of problems) console.error(problem);
  console.log(`${all.length - problems.length} of ${all.length} mutants apply to the code`);
  process.exit(problems.length > 0 ? 1 : 0);
}

const rsync = spawnSync("rsync", ["--version"], { stdio: "ignore" }).status === 0;

/**
 * Makes `dir` a copy of the tree (node_modules linked, not copied): with rsync, only what differs
 * is copied or removed, so a lane's copy is brought back after each mutant for little.
 */
function syncCopy(dir) {
  if (rsync) {
    const excluded = SKIPPED.map((name) => `--exclude=/${name}`);
    const result = spawnSync(
      "rsync",
      ["-a", "--delete", "--delete-excluded", "--filter=P /node_modules", ...excluded, `${root}/`, `${dir}/`],
      { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" },
    );
    if (result.status !== 0) throw new Error(`rsync could not copy the tree to ${dir}: ${result.stderr}`);
  } else {
    for (const name of readdirSync(dir)) rmSync(join(dir, name), { recursive: true, force: true });
    for (const name of readdirSync(root)) {
      if (!SKIPPED.includes(name)) cpSync(join(root, name), join(dir, name), { recursive: true });
    }
  }
  if (!existsSync(join(dir, "node_modules")))
    symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
}

function applyMutant(dir, mutant) {
  const file = join(dir, mutant.file);
  writeFileSync(
    file,
    readFileSync(file, "utf8").replace(mutant.search, () => mutant.replace),
  );
}

const TYPESCRIPT = ["--import", "./scripts/typescript/register.mjs"];

/**
 * The tree's database snapshot (test/helpers/database-snapshot.ts prints its path), and the files
 * it is made from: a mutant of one of those makes its own in its copy.
 */
function treeSnapshot() {
  const env = { ...process.env, NODE_ENV: "test", POSSEKIT_SOURCE: "1" };
  const made = spawnSync(process.execPath, [...TYPESCRIPT, "test/helpers/database-snapshot.ts"], {
    cwd: root,
    env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (made.status !== 0) {
    console.error("Could not make the tests' database snapshot (above).");
    process.exit(1);
  }
  // esbuild (tsx's, as the module hooks use) lists what the snapshot module imports of ours.
  const esbuild = createRequire(join(root, "package.json"))("esbuild");
  const { metafile } = esbuild.buildSync({
    entryPoints: [join(root, "test/helpers/database-snapshot.ts")],
    absWorkingDir: root,
    bundle: true,
    write: false,
    metafile: true,
    platform: "node",
    format: "esm",
    packages: "external",
    logLevel: "silent",
  });
  return { path: made.stdout.trim(), inputs: new Set(Object.keys(metafile.inputs)) };
}

/** Which test file killed each mutant last time: its files run in that order next time. */
function readHistory() {
  try {
    return JSON.parse(readFileSync(historyFile, "utf8"));
  } catch {
    return {};
  }
}

/** The mutant's test files, the one that killed it last time first, as groups run one after another. */
function testGroups(mutant, history) {
  const killer = history[mutant.id];
  if (mutant.tests.length > 1 && mutant.tests.includes(killer))
    return [[killer], mutant.tests.filter((test) => test !== killer)];
  return [mutant.tests];
}

/** The process groups running now, ended if we are interrupted. */
const running = new Set();

/**
 * Runs test files in `dir` through scripts/test.mjs (as `npm test` does), one file at a time, reading
 * the runner's TAP as it comes; with `bail`, ends the run at the first failing test. Resolves with
 * the output, the exit code, and the first failure (its name and file) if there was one.
 */
function runTests(dir, tests, env, { bail }) {
  return new Promise((done) => {
    const child = spawn(
      process.execPath,
      ["scripts/test.mjs", "--test-concurrency=1", "--test-reporter=tap", ...tests],
      { cwd: dir, env: { ...env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"], detached: true },
    );
    running.add(child.pid);
    let output = "";
    let pending = "";
    let failure = null;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    };
    // A failing test (not a todo) is `not ok N - name`, then a YAML block with its location, closed
    // by `...`: the run is ended once that block is read.
    const read = (line) => {
      if (!failure) {
        const failed = /^\s*not ok \d+ - (.+?)(?: # (TODO|SKIP)\b.*)?$/.exec(line);
        if (failed && !failed[2] && !/subtests? failed/.test(failed[1]))
          failure = { name: failed[1], file: null };
      } else if (!failure.done) {
        const location = /^\s*location: '(.+?)(?::\d+:\d+)?'$/.exec(line);
        if (location && !failure.file) failure.file = relative(dir, location[1]);
        if (/^\s*\.\.\.$/.test(line)) {
          failure.done = true;
          if (bail) end();
        }
      }
    };
    const take = (chunk) => {
      output += chunk;
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop();
      for (const line of lines) read(line);
    };
    child.stdout.on("data", take);
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      end();
    }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      running.delete(child.pid);
      // A test's processes may outlive the runner: the group goes with it.
      end();
      done({ code, output, timedOut, failure });
    });
  });
}

/** The names of the failing tests in the runner's output (TAP or spec reporter). */
function failures(output) {
  const names = [...output.matchAll(/^\s*(?:not ok \d+ - |✖ )(.+?)(?: \(\d+(?:\.\d+)?ms\))?$/gm)].map(
    (m) => m[1],
  );
  return [...new Set(names)].filter((name) => !/subtests? failed|# TODO/.test(name));
}

const testsRan = (output) =>
  Number(/^# (?:tests|ℹ tests) (\d+)/m.exec(output)?.[1] ?? /ℹ tests (\d+)/.exec(output)?.[1] ?? 0);

/** The environment of a mutant's tests: the tree's snapshot, unless the mutant changes what it is made from. */
function testEnv(mutant, snapshot) {
  const env = { ...process.env };
  if (mutant && snapshot.inputs.has(mutant.file)) delete env.POSSEKIT_TEST_SNAPSHOT;
  else env.POSSEKIT_TEST_SNAPSHOT = snapshot.path;
  return env;
}

/** Runs `tests` on an unchanged copy; exits when they fail there (a kill would then prove nothing). */
async function baseline(dir, tests, snapshot) {
  syncCopy(dir);
  const { code, output } = await runTests(dir, tests, testEnv(null, snapshot), { bail: false });
  if (code !== 0) {
    console.error(`The guarding tests fail without any mutant:\n${failures(output).join("\n")}`);
    process.exit(1);
  }
  console.log(`Baseline: ${testsRan(output)} tests pass without mutants.`);
}

async function judge(dir, mutant, snapshot, history) {
  const started = Date.now();
  const problem = invalid(mutant);
  if (problem) return { mutant, verdict: "INVALID", detail: problem, ms: 0 };
  syncCopy(dir);
  applyMutant(dir, mutant);
  const env = testEnv(mutant, snapshot);
  let ran = 0;
  for (const group of testGroups(mutant, history)) {
    const { code, output, timedOut, failure } = await runTests(dir, group, env, { bail: true });
    const ms = Date.now() - started;
    if (failure) {
      if (failure.file) history[mutant.id] = failure.file;
      return {
        mutant,
        verdict: "KILLED",
        detail: `${failure.name} (${failure.file ?? group.join(", ")})`,
        ms,
      };
    }
    if (timedOut)
      return {
        mutant,
        verdict: "KILLED",
        byTimeLimit: true,
        detail: `by the time limit: the tests did not finish within ${timeoutMs} ms`,
        ms,
      };
    if (testsRan(output) === 0)
      return { mutant, verdict: "INVALID", detail: `no test ran:\n${output.slice(-1500)}`, ms };
    if (code !== 0)
      return {
        mutant,
        verdict: "KILLED",
        detail: failures(output).slice(0, 2).join(" | ") || `exit ${code}`,
        ms,
      };
    ran += testsRan(output);
  }
  return { mutant, verdict: "SURVIVED", detail: `${ran} tests passed`, ms: Date.now() - started };
}

const lanes = Array.from({ length: Math.min(jobs, mutants.length) }, (_, i) =>
  mkdtempSync(join(tmpdir(), `possekit-mutants-${i + 1}-`)),
);
const cleanUp = () => {
  for (const pid of running) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {}
  }
  for (const lane of lanes) rmSync(lane, { recursive: true, force: true });
};
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    cleanUp();
    process.exit(130);
  });
}

console.log(`${mutants.length} mutants from ${LIST}, ${lanes.length} at a time.\n`);
const snapshot = treeSnapshot();
const history = readHistory();
const results = [];
try {
  if (process.env.MUTATION_BASELINE) {
    const valid = mutants.filter((mutant) => invalid(mutant) === null);
    await baseline(lanes[0], [...new Set(valid.flatMap((mutant) => mutant.tests))].sort(), snapshot);
  }
  const queue = [...mutants];
  await Promise.all(
    lanes.map(async (lane) => {
      for (let mutant = queue.shift(); mutant; mutant = queue.shift()) {
        const result = await judge(lane, mutant, snapshot, history);
        results.push(result);
        const seconds = (result.ms / 1000).toFixed(0).padStart(4);
        console.log(`${result.verdict.padEnd(8)} ${seconds} s  ${mutant.id}: ${mutant.promise}`);
        if (result.verdict !== "KILLED" || result.byTimeLimit || process.env.MUTATION_VERBOSE)
          console.log(`           ${result.detail}`);
      }
    }),
  );
} finally {
  cleanUp();
  try {
    writeFileSync(historyFile, `${JSON.stringify({ ...readHistory(), ...history }, null, 1)}\n`);
  } catch {}
}

const count = (verdict) => results.filter((r) => r.verdict === verdict).length;
const byTimeLimit = results.filter((r) => r.byTimeLimit).length;
console.log(
  `\n${count("KILLED")} killed${byTimeLimit ? ` (${byTimeLimit} only by the time limit)` : ""}, ${count("SURVIVED")} survived, ${count("INVALID")} could not be applied, of ${results.length}.`,
);
if (count("KILLED") !== results.length) {
  console.log(
    "A survivor is a promise no test guards: write the test that fails with that change. An invalid mutant no " +
      `longer matches the code: update its search text in ${LIST}.`,
  );
  process.exit(1);
}
