#!/usr/bin/env node
// Groups src/syndication's flat files by the four faces the core exports (syndication.ts: runs, due,
// reads, copies); what every face shares (the Syndication class, its parts, types, errors,
// migrations, the database's clock, the post's targets, the ledger folder) stays at the top.
//
//   node scripts/regroup-syndication.mjs          moves the files (git mv) and rewrites every path
//   node scripts/regroup-syndication.mjs --dry    says what it would do
//
// Re-runnable: a file already moved, or absent (removed by another branch), is passed over, and the
// imports are rewritten by resolving them, so that running it again after merging other branches
// moves what those branches added back at the old places and fixes their imports. A new file of
// src/syndication that MOVES does not name stays at the top and is listed at the end.
//
// It rewrites relative imports in the tracked TypeScript and JavaScript files of src, test, bench and
// scripts, and the text "src/syndication/<file>" wherever it is written (comments, docs,
// biome.json, test/mutation/mutants.json, the README). Only files git tracks are read: symlinked
// folders (interop, node_modules) are never touched.
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, posix, relative, resolve } from "node:path";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");
const BASE = "src/syndication";
const dry = process.argv.includes("--dry");

/** Face folder by file name. */
const FACES = {
  runs: [
    "runs.ts",
    "batch.ts",
    "broadcast.ts",
    "post-runner.ts",
    "syndicate-post.ts",
    "follow-ups.ts",
    "call-syndicator.ts",
    "post-result.ts",
    "lease.ts",
    "run-log.ts",
    "failure-notices.ts",
    "idempotency-key.ts",
    "idempotency-key-is-stable-per-post-and-target.test.ts",
    "target-checks.ts",
    "target-health.ts",
    "target-pauses.ts",
  ],
  due: [
    "due-work.ts",
    "due.ts",
    "scheduler.ts",
    "schedule-gate.ts",
    "live-checks.ts",
    "live-check-sweep.ts",
    "post-changes.ts",
  ],
  reads: ["page-reads.ts", "post-filter.ts", "public-copies.ts"],
  copies: [
    "copy-editing.ts",
    "own-texts.ts",
    "own-texts.test.ts",
    "thread-choices.ts",
    "copy-digest.ts",
    "sent-copy.ts",
  ],
};

const MOVES = new Map(
  Object.entries(FACES).flatMap(([face, files]) =>
    files.map((file) => [`${BASE}/${file}`, `${BASE}/${face}/${file}`]),
  ),
);
const BACK = new Map([...MOVES].map(([from, to]) => [to, from]));

const git = (...args) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8" });

// 1. Move.
for (const [from, to] of MOVES) {
  if (!existsSync(join(ROOT, from))) continue;
  if (existsSync(join(ROOT, to))) throw new Error(`${from} and ${to} both exist: merge them by hand first`);
  console.log(`move ${from} -> ${to}`);
  if (!dry) {
    execFileSync("mkdir", ["-p", dirname(join(ROOT, to))]);
    git("mv", from, to);
  }
}

// 2. Rewrite.
const tracked = git("ls-files", "-z")
  .split("\0")
  .filter(Boolean)
  .filter((file) => !file.startsWith("node_modules/") && !file.startsWith("interop/"))
  .filter((file) => existsSync(join(ROOT, file)) && !lstatSync(join(ROOT, file)).isSymbolicLink());

const CODE = /\.(ts|mts|cts|mjs|cjs|js)$/;
const TEXT = /\.(ts|mts|cts|mjs|cjs|js|md|json|yaml|yml)$/;
const IMPORT = /(\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)(["'])(\.{1,2}\/[^"'\n]+)\2/g;

const toPosix = (path) => path.split("\\").join("/");
const exists = (path) => existsSync(join(ROOT, path));

/** The specifier `spec` of `file` (now at `file`, maybe once at BACK.get(file)), rewritten. */
function rewriteSpecifier(file, spec) {
  const here = posix.dirname(file);
  const direct = posix.normalize(posix.join(here, spec));
  if (exists(direct)) return spec;
  const before = BACK.get(file);
  const candidates = [direct, ...(before ? [posix.normalize(posix.join(posix.dirname(before), spec))] : [])];
  for (const candidate of candidates) {
    const target = MOVES.get(candidate) ?? candidate;
    if (!exists(target)) continue;
    const rel = toPosix(relative(here, target));
    return rel.startsWith(".") ? rel : `./${rel}`;
  }
  return spec;
}

let changed = 0;
for (const file of tracked) {
  if (!TEXT.test(file) || file === "package-lock.json") continue;
  const original = readFileSync(join(ROOT, file), "utf8");
  let text = original;
  if (CODE.test(file) && /^(src|test|bench|scripts)\//.test(file))
    text = text.replace(
      IMPORT,
      (_whole, lead, quote, spec) => `${lead}${quote}${rewriteSpecifier(file, spec)}${quote}`,
    );
  for (const [from, to] of MOVES) if (text.includes(from)) text = text.split(from).join(to);
  if (text !== original) {
    changed += 1;
    console.log(`rewrite ${file}`);
    if (!dry) writeFileSync(join(ROOT, file), text);
  }
}

const left = git("ls-files", BASE)
  .split("\n")
  .filter((file) => /^src\/syndication\/[^/]+\.ts$/.test(file) && !MOVES.has(file));
// Imports sorted again where their paths changed order.
if (!dry && changed > 0)
  try {
    execFileSync("npx", ["biome", "check", "--write", "src", "test", "bench", "scripts"], {
      cwd: ROOT,
      stdio: "ignore",
    });
  } catch {
    // What biome cannot fix it reports at the next `npx biome check .`.
  }
console.log(
  `${changed} files rewritten. At the top of ${BASE}: ${left.map((f) => posix.basename(f)).join(", ")}`,
);
