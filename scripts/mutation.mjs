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
// Two mutants run at a time (MUTATION_JOBS), each test run under MUTATION_TIMEOUT_MS.
import { spawn } from "node:child_process";
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
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(import.meta.url), "../..");
const LIST = "test/mutation/mutants.json";
const jobs = Number(process.env.MUTATION_JOBS ?? 2);
const timeoutMs = Number(process.env.MUTATION_TIMEOUT_MS ?? 240_000);
/**
 * Not copied: node_modules is linked instead; the rest is not needed to run tests. docs/ is copied:
 * tests run its examples (docs/copies.md), and a mutant may break one.
 */
const SKIPPED = new Set(["node_modules", ".git", "bench", "data", "dist"]);

const all = JSON.parse(readFileSync(join(root, LIST), "utf8"));
const exact = process.argv.includes("--exact");
const wanted = process.argv.slice(2).filter((word) => word !== "--exact");
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

/** A copy of the tree with the change applied, node_modules linked rather than copied. */
function scratchCopy(mutant) {
  const dir = mkdtempSync(join(tmpdir(), `possekit-mutant-${mutant?.id ?? "baseline"}-`));
  for (const name of readdirSync(root)) {
    if (!SKIPPED.has(name)) cpSync(join(root, name), join(dir, name), { recursive: true });
  }
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
  if (!mutant) return dir;
  const file = join(dir, mutant.file);
  writeFileSync(
    file,
    readFileSync(file, "utf8").replace(mutant.search, () => mutant.replace),
  );
  return dir;
}

/** Runs the guarding test files in `dir` (through scripts/test.mjs, as `npm test` does). */
function runTests(dir, tests) {
  return new Promise((done) => {
    const child = spawn(process.execPath, ["scripts/test.mjs", ...tests], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
      done({ code: null, output, timedOut: true });
    }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, output, timedOut: false });
    });
  });
}

/** The names of the failing tests in the runner's output (TAP or spec reporter). */
function failures(output) {
  const names = [...output.matchAll(/^\s*(?:not ok \d+ - |✖ )(.+?)(?: \(\d+(?:\.\d+)?ms\))?$/gm)].map(
    (m) => m[1],
  );
  return [...new Set(names)].filter((name) => !/subtests? failed/.test(name));
}

const testsRan = (output) =>
  Number(/^# (?:tests|ℹ tests) (\d+)/m.exec(output)?.[1] ?? /ℹ tests (\d+)/.exec(output)?.[1] ?? 0);

/** Runs `tests` on an unchanged copy; exits when they fail there (a kill would then prove nothing). */
async function baseline(tests) {
  const dir = scratchCopy(null);
  try {
    const { code, output } = await runTests(dir, tests);
    if (code !== 0) {
      console.error(`The guarding tests fail without any mutant:\n${failures(output).join("\n")}`);
      process.exit(1);
    }
    console.log(`Baseline: ${testsRan(output)} tests pass without mutants.`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function judge(mutant) {
  const started = Date.now();
  const problem = invalid(mutant);
  if (problem) return { mutant, verdict: "INVALID", detail: problem, ms: 0 };
  const dir = scratchCopy(mutant);
  try {
    const { code, output, timedOut } = await runTests(dir, mutant.tests);
    const ms = Date.now() - started;
    if (timedOut)
      return { mutant, verdict: "KILLED", detail: `the tests did not finish within ${timeoutMs} ms`, ms };
    if (testsRan(output) === 0)
      return { mutant, verdict: "INVALID", detail: `no test ran:\n${output.slice(-1500)}`, ms };
    if (code === 0) return { mutant, verdict: "SURVIVED", detail: `${testsRan(output)} tests passed`, ms };
    const failed = failures(output);
    return { mutant, verdict: "KILLED", detail: failed.slice(0, 2).join(" | ") || `exit ${code}`, ms };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`${mutants.length} mutants from ${LIST}, ${jobs} at a time.\n`);
if (process.env.MUTATION_BASELINE) {
  const valid = mutants.filter((mutant) => invalid(mutant) === null);
  await baseline([...new Set(valid.flatMap((mutant) => mutant.tests))].sort());
}
const results = [];
const queue = [...mutants];
await Promise.all(
  Array.from({ length: Math.max(1, jobs) }, async () => {
    for (let mutant = queue.shift(); mutant; mutant = queue.shift()) {
      const result = await judge(mutant);
      results.push(result);
      const seconds = (result.ms / 1000).toFixed(0).padStart(4);
      console.log(`${result.verdict.padEnd(8)} ${seconds} s  ${mutant.id}: ${mutant.promise}`);
      if (result.verdict !== "KILLED" || process.env.MUTATION_VERBOSE)
        console.log(`           ${result.detail}`);
    }
  }),
);

const count = (verdict) => results.filter((r) => r.verdict === verdict).length;
console.log(
  `\n${count("KILLED")} killed, ${count("SURVIVED")} survived, ${count("INVALID")} could not be applied, of ${results.length}.`,
);
if (count("KILLED") !== results.length) {
  console.log(
    "A survivor is a promise no test guards: write the test that fails with that change. An invalid mutant no " +
      `longer matches the code: update its search text in ${LIST}.`,
  );
  process.exit(1);
}
