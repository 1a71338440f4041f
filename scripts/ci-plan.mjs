#!/usr/bin/env node
// Which of CI's optional parts this change needs (.ci/run reads the lines it prints; docs/testing.md).
// The change: the commits since the newest commit older than 4 hours (as the before-stop hook
// computes its base), plus whatever is not committed yet. Prints shell assignments:
//
//   PLAN_BASE=<commit or empty>   PLAN_WHY=<one line>
//   MUTANTS=<ids, space-separated, or "all">   INTEROP=0|1   INDIEKIT=0|1
//   STRYKER=0|1   STRYKER_WHY=<one line>
//   MUTANTS_WHY=<how many mutants run and why>   MUTANTS_COUNT=<how many>   MUTANTS_TOTAL=<in the list>
//   MUTANTS_SECONDS=<the part's estimate>   MUTANTS_LEFT=<ids left out>   MUTANTS_LEFT_OUT=<lines>
//
// Mutants: all of them with MUTATION=all; else those whose source file or one of whose test files
// changed, whose tests import a changed helper (test/**/*.ts that is not a test), and those added
// (an id absent at the base) or edited in test/mutation/mutants.json; with no base, every mutant.
// With MUTATION_BUDGET_SECONDS (.ci/run gives it), those that fit in that many seconds, each at its
// cost by its tests' tier (decision 0085); with MUTATION_MAX_MUTANTS, at most that many; by priority: new or edited entries always, then source changed,
// test changed, helper changed, a seeded sample (MUTATION_SEED, else HEAD's id) within the priority
// the limit cuts into, and every mutant left out printed by id (scripts/mutation-plan.mjs, decision 0072).
// Interop (a 270 MB install): when the change touches src/syndicators/bluesky/ or interop/bluesky/,
// when INTEROP=1, or with no base. Indiekit (the plug-in inside the real Indiekit): when the change
// touches what Indiekit loads of the package (INDIEKIT_PATHS below), when INDIEKIT=1, or with no base.
//
// Generated mutants (StrykerJS, decision 0069): when the change touches a source file of the folders
// stryker.config.mjs names, or with no base (then every file of them); STRYKER=0 with STRYKER=0 set.
// Which lines and mutants: scripts/stryker-changed.mjs --lines, once node_modules is installed.
//
//   node scripts/ci-plan.mjs            the plan for HEAD
//   node scripts/ci-plan.mjs --explain  the same, with the changed files and why each mutant runs
//   node scripts/ci-plan.mjs --mutants  only the MUTANTS* lines (.ci/run, once it knows the budget)
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import { FOLDERS } from "../stryker.config.mjs";
import { chooseMutants, chosenSummary, leftOutLines, secondsOfMutant } from "./mutation-plan.mjs";
import { isMutable, seedOf } from "./stryker-plan.mjs";
import { tierOf } from "./test-tiers.mjs";

const LIST = "test/mutation/mutants.json";
const git = (...args) => {
  try {
    return execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "";
  }
};
const explain = process.argv.includes("--explain");
const lines = (text) => text.split("\n").filter(Boolean);

const base = process.env.CI_BASE ?? git("rev-list", "-1", "--before=4 hours ago", "HEAD");
const changed = base
  ? [
      ...new Set([
        ...lines(git("diff", "--name-only", base, "HEAD")),
        ...lines(git("diff", "--name-only", "HEAD")),
        ...lines(git("ls-files", "--others", "--exclude-standard")),
      ]),
    ].sort()
  : [];
const mutants = JSON.parse(readFileSync(LIST, "utf8"));

// Why each mutant is needed: id -> [{ kind, text }] (kind: a priority of scripts/mutation-plan.mjs).
const reasons = new Map();
const note = (id, kind, text) => reasons.set(id, [...(reasons.get(id) ?? []), { kind, text }]);
let chosen;
let why;
let mutantsWhy;
let left = [];
let leftOut = [];
if (process.env.MUTATION === "all") {
  chosen = "all";
  why = "MUTATION=all";
  mutantsWhy = `all ${mutants.length} (MUTATION=all)`;
} else if (!base) {
  why = "no commit older than 4 hours: the whole tree is the change";
  for (const mutant of mutants) note(mutant.id, "tree", "no base commit");
} else {
  const helpers = changed.filter(
    (file) => file.startsWith("test/") && file.endsWith(".ts") && !file.endsWith(".test.ts"),
  );
  const readTest = (file) => {
    try {
      return readFileSync(file, "utf8");
    } catch {
      return "";
    }
  };
  // A mutant's list entry as it was at the base: a new or edited entry must be shown to be killed.
  let before = [];
  try {
    before = JSON.parse(git("show", `${base}:${LIST}`) || "[]");
  } catch {}
  const old = new Map(before.map((mutant) => [mutant.id, JSON.stringify(mutant)]));
  for (const mutant of mutants) {
    if (changed.includes(mutant.file)) note(mutant.id, "source", `its source ${mutant.file} changed`);
    for (const test of mutant.tests) {
      if (changed.includes(test)) note(mutant.id, "test", `its test ${test} changed`);
      const text = readTest(test);
      for (const helper of helpers) {
        if (text.includes(`/${basename(helper).replace(/\.ts$/, "")}.ts"`))
          note(mutant.id, "helper", `its test ${test} imports ${helper}, which changed`);
      }
    }
    // A new id (absent at the base) always runs: nothing has shown yet that a test kills it.
    if (!old.has(mutant.id)) note(mutant.id, "entry", `it is new in ${LIST}`);
    else if (old.get(mutant.id) !== JSON.stringify(mutant))
      note(mutant.id, "entry", `its entry in ${LIST} is edited`);
  }
  why = `${changed.length} files changed since ${base.slice(0, 12)}`;
  if (explain) {
    console.log(`# changed since ${base}:`);
    for (const file of changed) console.log(`#   ${file}`);
    for (const [id, list] of reasons)
      console.log(`# mutant ${id}: ${[...new Set(list.map((reason) => reason.text))].join("; ")}`);
  }
}
// Each mutant's seconds in the part, by the tiers of its tests (decision 0085).
const secondsOf = new Map(mutants.map((mutant) => [mutant.id, secondsOfMutant(mutant.tests, tierOf)]));
let seconds = 0;
if (chosen !== "all") {
  // The limits (decisions 0072 and 0085): an explicit count, and what fits in the part's seconds,
  // each mutant at its own cost; none without either.
  const cap = process.env.MUTATION_MAX_MUTANTS ? Number(process.env.MUTATION_MAX_MUTANTS) : null;
  const budget = process.env.MUTATION_BUDGET_SECONDS ? Number(process.env.MUTATION_BUDGET_SECONDS) : null;
  const seedText = process.env.MUTATION_SEED || git("rev-parse", "HEAD") || "0";
  const candidates = new Map([...reasons].map(([id, list]) => [id, list.map((reason) => reason.kind)]));
  const plan = chooseMutants(candidates, {
    cap,
    budget,
    secondsOf: (id) => secondsOf.get(id),
    seed: seedOf(seedText),
  });
  chosen = plan.run;
  left = plan.left;
  seconds = plan.seconds;
  leftOut = leftOutLines(plan, { cap, budget, seedText: seedText.slice(0, 12) });
  const limits = [
    ...(cap === null ? [] : [`cap ${cap}`]),
    ...(budget === null ? [] : [`${Math.round(seconds)} s, priced by the tier of their tests`]),
  ];
  mutantsWhy =
    reasons.size > 0
      ? `${chosenSummary(plan)}${limits.length === 0 ? "" : `; ${limits.join(", ")}, the new or edited entries always run`}`
      : `0 of ${mutants.length} (no source, test or entry of any mutant changed)`;
  if (explain) for (const line of leftOut) console.log(`# ${line}`);
} else seconds = mutants.reduce((sum, mutant) => sum + secondsOf.get(mutant.id), 0);

const interop =
  process.env.INTEROP === "1" ||
  !base ||
  changed.some((file) => file.startsWith("src/syndicators/bluesky/") || file.startsWith("interop/bluesky/"));

// The plug-in inside the real Indiekit (interop/indiekit/): when what Indiekit loads of the package
// changed (the plug-in, the contract, its own host there and the sources it reads posts with, the
// package's entry, words, views, how the package is built), or the check itself.
const INDIEKIT_PATHS = [
  "src/plugin/",
  "src/contract/",
  "src/hosts/",
  "src/sources/",
  "src/index.ts",
  "locales/",
  "views/",
  "interop/indiekit/",
  "scripts/build.mjs",
  "package.json",
];
const indiekit =
  process.env.INDIEKIT === "1" ||
  !base ||
  changed.some((file) => INDIEKIT_PATHS.some((path) => file === path || file.startsWith(path)));

const strykerFiles = changed.filter((file) => isMutable(file, FOLDERS) && existsSync(file));
const stryker = process.env.STRYKER !== "0" && (!base || strykerFiles.length > 0);
const strykerWhy =
  process.env.STRYKER === "0"
    ? "none (STRYKER=0)"
    : !base
      ? "every source file of the mutated folders (no base commit)"
      : strykerFiles.length > 0
        ? `the changed lines of ${strykerFiles.length} source file(s) of the mutated folders`
        : "none (the change touches no source file of the folders stryker.config.mjs names)";

const count = chosen === "all" ? mutants.length : chosen.length;
const quoted = (text) => `'${text.replaceAll("'", "")}'`;
console.log(`MUTANTS=${quoted(chosen === "all" ? "all" : chosen.join(" "))}`);
// How many mutants run and why, and how many there are, and the part's estimate (.ci/run orders its
// parts by it); those left out over the cap, and the lines that name them.
console.log(`MUTANTS_WHY=${quoted(mutantsWhy)}`);
console.log(`MUTANTS_COUNT=${count}`);
console.log(`MUTANTS_TOTAL=${mutants.length}`);
console.log(`MUTANTS_SECONDS=${Math.round(seconds)}`);
console.log(`MUTANTS_LEFT=${quoted(left.join(" "))}`);
console.log(`MUTANTS_LEFT_OUT=${quoted(leftOut.join("\n"))}`);
if (process.argv.includes("--mutants")) process.exit(0);
console.log(`PLAN_BASE=${base}`);
console.log(`PLAN_WHY=${quoted(why)}`);
console.log(`INTEROP=${interop ? 1 : 0}`);
console.log(`INDIEKIT=${indiekit ? 1 : 0}`);
console.log(`STRYKER=${stryker ? 1 : 0}`);
console.log(`STRYKER_WHY='${strykerWhy.replaceAll("'", "")}'`);
