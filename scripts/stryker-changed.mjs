#!/usr/bin/env node
// Generated mutants (StrykerJS, decision 0057) on the files a change touches: the TypeScript files of the
// folders stryker.config.mjs names that differ from a base commit are mutated, each tested by the
// test files that reach it (its own *.test.ts beside it, and the unit and integration test files that
// import it by name; system tests start processes whose coverage Stryker cannot see). The report
// stays in reports/stryker/ (mutation.html, mutation.json, scores.txt) and each folder's mutation
// score is printed and checked against its threshold (docs/testing.md, "Generated mutants").
//
//   npm run test:stryker                       files changed against main (committed or not)
//   npm run test:stryker -- --base HEAD~3      against another commit
//   npm run test:stryker -- src/net/safe-fetch.ts src/net/private-addresses.ts
//                                              these files, whatever changed
//   npm run test:stryker -- --list             prints the files and their tests; runs nothing
//
// Exit status: 0 when every folder mutated is at or over its threshold (or nothing was to mutate),
// 1 below a threshold, 2 when Stryker itself failed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { FOLDERS, REPORT_DIR } from "../stryker.config.mjs";

const root = join(import.meta.dirname, "..");
process.chdir(root);

const args = process.argv.slice(2);
const listOnly = args.includes("--list");
const baseAt = args.indexOf("--base");
const base = baseAt >= 0 ? args[baseAt + 1] : "main";
const named = args.filter((arg, index) => !arg.startsWith("--") && (baseAt < 0 || index !== baseAt + 1));

const folderOf = (file) =>
  Object.keys(FOLDERS)
    .filter((folder) => file.startsWith(`${folder}/`))
    .sort((a, b) => b.length - a.length)[0];
const mutable = (file) =>
  file.endsWith(".ts") &&
  !file.endsWith(".test.ts") &&
  !file.endsWith(".d.ts") &&
  folderOf(file) &&
  existsSync(file);

function changedFiles() {
  // Against the point where this branch left the base: what others merged since is not this change.
  const fork = spawnSync("git", ["merge-base", base, "HEAD"], { encoding: "utf8" });
  if (fork.status !== 0) {
    console.error(`No common commit with ${base}: ${fork.stderr.trim()} (name a commit with --base)`);
    process.exit(2);
  }
  const git = spawnSync("git", ["diff", "--name-only", "--diff-filter=AMR", fork.stdout.trim()], {
    encoding: "utf8",
  });
  const untracked = spawnSync("git", ["ls-files", "--others", "--exclude-standard"], { encoding: "utf8" });
  return [...git.stdout.split("\n"), ...untracked.stdout.split("\n")].filter(Boolean);
}

const files = [
  ...new Set((named.length > 0 ? named.map((file) => relative(root, file)) : changedFiles()).filter(mutable)),
].sort();
if (files.length === 0) {
  console.log(
    named.length > 0
      ? `None of ${named.join(", ")} is a source file of the mutated folders (${Object.keys(FOLDERS).join(", ")}).`
      : `No source file of the mutated folders differs from ${base}: nothing to mutate.`,
  );
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

const candidates = unitAndIntegration().map((test) => ({
  test,
  // Every module the test file imports by a relative path, resolved to a path from the root.
  imports: new Set(
    [...readFileSync(test, "utf8").matchAll(/(?:from|import\()\s*"(\.{1,2}\/[^"]+)"/g)].map((match) =>
      relative(root, join(root, dirname(test), match[1])),
    ),
  ),
}));
/** The test files that import the module itself. */
const importsOf = (file) => candidates.filter(({ imports }) => imports.has(file)).map(({ test }) => test);
const testsOf = new Map(files.map((file) => [file, [...new Set(importsOf(file))].sort()]));
const testFiles = [...new Set([...testsOf.values()].flat())].sort();

for (const [file, tests] of testsOf) {
  console.log(`${file}`);
  for (const test of tests) console.log(`  ${test}`);
  if (tests.length === 0) console.log("  (no test file imports it: every mutant will survive as NoCoverage)");
}
if (listOnly) process.exit(0);
if (testFiles.length === 0) {
  console.error("No test file imports these files: every mutant would survive. Write their tests first.");
  process.exit(1);
}

mkdirSync(REPORT_DIR, { recursive: true });
const config = join(REPORT_DIR, "run.config.mjs");
writeFileSync(
  config,
  `import base from "../../stryker.config.mjs";
export default { ...base, mutate: ${JSON.stringify(files)}, tap: { ...base.tap, testFiles: ${JSON.stringify(testFiles)} } };
`,
);
const started = Date.now();
const stryker = spawnSync(join("node_modules", ".bin", "stryker"), ["run", config], { stdio: "inherit" });
const seconds = Math.round((Date.now() - started) / 1000);
if (stryker.status !== 0) {
  console.error(`Stryker failed (exit ${stryker.status}); see the output above.`);
  process.exit(2);
}

// The score as Stryker counts it: detected (killed, timeout) over valid mutants (those and survived,
// no coverage); mutants that did not compile or were ignored count for nothing.
const report = JSON.parse(readFileSync(join(REPORT_DIR, "mutation.json"), "utf8"));
const byFolder = new Map();
for (const [file, { mutants }] of Object.entries(report.files)) {
  const folder = folderOf(relative(root, join(root, file))) ?? dirname(file);
  const counts = byFolder.get(folder) ?? { killed: 0, survived: 0, noCoverage: 0 };
  for (const { status } of mutants) {
    if (status === "Killed" || status === "Timeout") counts.killed += 1;
    else if (status === "Survived") counts.survived += 1;
    else if (status === "NoCoverage") counts.noCoverage += 1;
  }
  byFolder.set(folder, counts);
}
const lines = [
  `Generated mutants on ${files.length} file(s), ${testFiles.length} test file(s), ${seconds} s`,
];
let below = false;
for (const [folder, { killed, survived, noCoverage }] of [...byFolder].sort()) {
  const valid = killed + survived + noCoverage;
  const score = valid === 0 ? 100 : (100 * killed) / valid;
  const threshold = FOLDERS[folder] ?? 0;
  const ok = score >= threshold;
  below ||= !ok;
  lines.push(
    `${folder.padEnd(22)} ${score.toFixed(1).padStart(5)} %  (killed ${killed}, survived ${survived}, no coverage ${noCoverage}; threshold ${threshold} %) ${ok ? "ok" : "BELOW"}`,
  );
}
lines.push(`Report: ${join(REPORT_DIR, "mutation.html")}`);
writeFileSync(join(REPORT_DIR, "scores.txt"), `${lines.join("\n")}\n`);
console.log(lines.join("\n"));
process.exit(below ? 1 : 0);
