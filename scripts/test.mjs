#!/usr/bin/env node
// `npm test` and its tiers (docs/testing.md): finds the test files, picks those of the tiers asked
// for, and runs them with Node's test runner; our TypeScript runs through scripts/typescript/ (module
// hooks over esbuild with a disk cache), PGlite's WebAssembly with Liftoff only (docs/testing.md).
//
//   npm test                         unit + integration (PGlite; PostgreSQL too with TEST_DATABASE_URL)
//   npm run test:unit                pure modules: no database, no server, no child process (≤ 30 s)
//   npm run test:integration         database and HTTP, in process
//   npm run test:system              processes: the possekit command, the browser, several instances
//   npm test -- test/cli serve       only files whose path contains one of the words, from every tier
//   npm test -- --test-name-pattern=lease --watch    any other --flag goes to node --test
//   node scripts/test.mjs --postgres the files that prove what PostgreSQL decides (CI's PostgreSQL part)
//   node scripts/test.mjs --list [...]       prints the files chosen, with their tiers; runs nothing
//
// Test files share processes, each file a suite named by its path: unit and integration files eight
// to one (GROUP_SIZE below), system files four (SYSTEM_GROUP_SIZE): starting a process and loading
// the host's modules was most of what npm test cost, and a good part of the system tier.
// A file's tier comes from where it lives (scripts/test-tiers.mjs): every test under src/ is unit,
// beside the module it tests; under test/, the files and folders SYSTEM names are system, and any
// other is integration, so a new test always runs. A test under test/ that is a unit test by what it
// imports stops the run, naming where it belongs; a name in SYSTEM that matches no file does too: a
// list that silently names nothing would let a tier shrink unseen.
// Browser tests need Chromium: found at CHROMIUM_PATH or /usr/bin/chromium, else installed from
// Debian's packages when we are root (never downloaded by Playwright, which cannot work offline).
// The publishing end-to-end test needs Hugo: HUGO_PATH or /usr/bin/hugo, installed the same way;
// the reverse proxy test nginx (Debian's nginx-light): NGINX_PATH or /usr/sbin/nginx.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { groupEntry } from "./test-group-entry.mjs";
import { misplacedUnitTests, SYSTEM, tierOf } from "./test-tiers.mjs";

/**
 * What PostgreSQL decides itself (CI runs these with TEST_DATABASE_URL and TEST_ENGINES=postgres):
 * the lease, the claim, the ledger's queries, the migrations' lock, and several instances sharing
 * one database.
 */
const POSTGRES = [
  /lease/,
  /claim/,
  /ledger/,
  /migrat/,
  /postgresql/,
  /racing/,
  /exactly-once/,
  /^test\/scale\//,
  // The connected accounts' rows (jsonb secrets, FOR UPDATE) and the held refusal in the ledger.
  /^test\/accounts\/account-secrets-key-rotation/,
  /^test\/accounts\/refused-account-holds/,
];

/** Several server processes sharing one database: PostgreSQL only (left out, saying so, without it). */
const NEEDS_POSTGRES = [/^test\/scale\//, /-on-postgresql-/];

const TIERS = ["unit", "integration", "system"];

/**
 * Test files that keep a process of their own when the others share (see GROUP_SIZE): they look at
 * what the whole process holds (its event loop's timers), which another file's leftovers would change.
 */
const ALONE = [
  "test/server/pglite-start-keeps-the-event-loop-alive.test.ts",
  // Measures its server's event loop and request times: another file's server would share the loop.
  "test/sources/feeds/a-hostile-or-huge-feed-never-holds-the-server.test.ts",
  // Bounds the whole process's peak resident memory (VmHWM): the modules and databases of the other
  // files of its group, loaded before any suite (scripts/test-group-entry.mjs), raised it to 625 MB.
  "test/server/first-start-creates-the-embedded-database-in-a-child-that-exits.test.ts",
];

/**
 * System files that keep a process of their own: several server instances on one PostgreSQL (the
 * PostgreSQL part's), whose tests measure what is shared between processes as it happens (a lapsing
 * lease, 10,000 hostile requests and the memory they leave, 200 clients at once); a neighbour's
 * leftovers in the process would blur the figure, and the part runs few of them anyway.
 */
const SYSTEM_ALONE = NEEDS_POSTGRES;

/**
 * Unit and integration files run GROUP_SIZE to a process, each file a suite of its own named by its
 * path (its top-level hooks scoped to it, as in a process of its own). A process pays about 2–3 s of
 * CPU before its first assertion (Node's module hooks, and loading the host's 600 modules), which
 * was most of what `npm test` cost; a group pays it once. Runs of a few files (a mutant's, a
 * developer's), --watch (which reruns a file when it changes) and --test-only keep one process per
 * file. TEST_GROUP_SIZE=1 runs every file alone again (to rule out one file disturbing another, or
 * to compare).
 */
const GROUP_SIZE = Number(process.env.TEST_GROUP_SIZE) || 8;

/**
 * System files share processes too, SYSTEM_GROUP_SIZE to one, in groups of their own. Each starts
 * what it tests (commands and servers as child processes, browsers, in-process hosts) in its own
 * tests and hooks and stops it in its `after`; none signals its own process, writes process.env,
 * adds a process.on handler or a global, or takes a fixed port, so sharing a process hides nothing
 * from a file, and what a process pays to load the host and Playwright (about 2.5 s of CPU) is paid
 * once a group. Fewer to a group than GROUP_SIZE: a system file takes 10–140 s where an integration
 * file takes a second or two, and the two lanes of --test-concurrency=2 end closer together with
 * small groups (in path order: nothing records which file is long). TEST_SYSTEM_GROUP_SIZE changes
 * it; TEST_GROUP_SIZE=1 keeps these alone too.
 */
const SYSTEM_GROUP_SIZE = Math.min(GROUP_SIZE, Number(process.env.TEST_SYSTEM_GROUP_SIZE) || 4);

/**
 * How each test process runs our TypeScript: module hooks that compile it with esbuild and keep the
 * result on disk (scripts/typescript/hooks.mjs). tsx did the same job for about 0.7 s more CPU per
 * process, and every test file is a process (docs/testing.md, "Per-file cost").
 */
const TYPESCRIPT = ["--import", pathToFileURL(join(import.meta.dirname, "typescript/register.mjs")).href];

/**
 * V8 flags of the test processes. --liftoff-only: PostgreSQL's WebAssembly runs on V8's baseline
 * compiler and is never optimised. A test file opens a few databases and runs hundreds of queries;
 * optimising PostgreSQL's hot functions costs more CPU than it saves below about 5,000 queries in a
 * process (measured: one database from the snapshot 0.55 s instead of 0.9 s of CPU; 4,000 queries
 * 3.4–4.0 s instead of 5.3–5.6 s; equal at 12,000; 20,000 queries 29 s instead of 19 s).
 */
const V8_FLAGS = ["--liftoff-only"];

function findTests(folder) {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith(".test.ts") ? [path] : [];
  });
}

/** *.test.ts files outside test/, src/ and interop/ (and the folders no test lives in). */
function findStray(folder) {
  const skipped = new Set(["node_modules", ".git", "test", "src", "interop", "dist", "data"]);
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = folder === "." ? entry.name : join(folder, entry.name);
    if (entry.isDirectory()) return skipped.has(path) || entry.name.startsWith(".") ? [] : findStray(path);
    return entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/**
 * A program the tests need (Chromium for the browser tests, Hugo for the publishing test): found at
 * its path, else installed from Debian's package when we are root.
 */
function ensureDebianProgram(pkg, variable, fallback, forWhat) {
  const path = process.env[variable] ?? fallback;
  if (existsSync(path)) return path;
  if (process.getuid?.() !== 0) {
    console.error(`${pkg} is not at ${path}. Install it (apt-get install ${pkg}) or set ${variable}.`);
    process.exit(1);
  }
  console.log(`Installing Debian's ${pkg} for ${forWhat}…`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  const install = spawnSync("apt-get", ["install", "-y", "-qq", pkg], { stdio: "inherit", env });
  if (install.status !== 0 || !existsSync(path)) {
    console.error(`Could not install ${pkg}; ${forWhat} cannot run.`);
    process.exit(1);
  }
  return path;
}

/** Node's test runner flags that take their value as the next argument. */
const RUNNER_FLAGS_WITH_VALUE = new Set([
  "--test-name-pattern",
  "--test-skip-pattern",
  "--test-reporter",
  "--test-reporter-destination",
  "--test-concurrency",
  "--test-timeout",
  "--test-shard",
]);

function parse(argv) {
  const options = { tiers: null, postgres: false, list: false, runner: [], filters: [] };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg.startsWith("--tier=")) {
      options.tiers = arg.slice("--tier=".length).split(",");
      const unknown = options.tiers.filter((tier) => tier !== "all" && !TIERS.includes(tier));
      if (unknown.length > 0)
        throw new Error(`--tier: ${unknown.join(", ")} is not one of ${TIERS.join(", ")}, all`);
      if (options.tiers.includes("all")) options.tiers = TIERS;
    } else if (arg === "--postgres") options.postgres = true;
    else if (arg === "--list") options.list = true;
    else if (arg.startsWith("--")) {
      options.runner.push(arg);
      if (RUNNER_FLAGS_WITH_VALUE.has(arg) && i + 1 < argv.length) {
        i += 1;
        options.runner.push(argv[i]);
      }
    } else options.filters.push(arg);
  }
  return options;
}

const main = () => {
  let options;
  try {
    options = parse(process.argv.slice(2));
  } catch (error) {
    console.error(error.message);
    process.exit(2);
  }
  // Tests live under test/ or beside the code in src/; a test file anywhere else belongs to no tier
  // (interop/ has its own command, npm run test:interop) and stops the run rather than be ignored.
  const all = [...findTests("test"), ...(existsSync("src") ? findTests("src") : [])].sort();
  const stray = findStray(".");
  if (stray.length > 0) {
    console.error(
      `Test files in no tier (move them under test/ or beside their code in src/):\n  ${stray.join("\n  ")}`,
    );
    process.exit(2);
  }
  // Every name in the lists must still match a file: a renamed file would leave its tier silently.
  for (const entry of [...SYSTEM, ...ALONE]) {
    if (entry.endsWith("/") ? !existsSync(entry) : !all.includes(entry)) {
      console.error(
        `scripts/test-tiers.mjs or scripts/test.mjs names ${entry}, which matches no test file or folder: update the list.`,
      );
      process.exit(2);
    }
  }
  // A unit test under test/ would run in the integration tier, unguarded and at its cost.
  const misplaced = misplacedUnitTests(".", all);
  if (misplaced.length > 0) {
    console.error(
      "Unit tests outside src/ (they import only pure modules): move each beside the module it tests in " +
        `src/, where the unit tier finds it (docs/testing.md, "Tiers"):\n  ${misplaced.join("\n  ")}`,
    );
    process.exit(2);
  }
  const tierOfFile = new Map(all.map((file) => [file, tierOf(file)]));
  // Words name files in every tier (a mutant's tests, `npm test -- test/cli`); without words,
  // `npm test` is unit + integration.
  const tiers =
    options.tiers ?? (options.filters.length > 0 || options.postgres ? TIERS : ["unit", "integration"]);
  const files = all.filter(
    (file) =>
      tiers.includes(tierOfFile.get(file)) &&
      (options.filters.length === 0 || options.filters.some((word) => file.includes(word))) &&
      (!options.postgres || POSTGRES.some((pattern) => pattern.test(file))),
  );
  if (files.length === 0) {
    console.error("No test files matched.");
    return 1;
  }
  if (options.list) {
    // Written at once and synchronously: main's process.exit would cut a piped console.log's queue
    // short (a caller reading the list through a pipe got 279 of 406 files on a loaded machine).
    writeSync(1, files.map((file) => `${tierOfFile.get(file).padEnd(12)} ${file}\n`).join(""));
    return 0;
  }
  if (files.some((file) => file.includes("/e2e/")))
    process.env.CHROMIUM_PATH = ensureDebianProgram(
      "chromium",
      "CHROMIUM_PATH",
      "/usr/bin/chromium",
      "the browser tests",
    );
  if (files.some((file) => file.includes("behind-nginx")))
    process.env.NGINX_PATH = ensureDebianProgram(
      "nginx-light",
      "NGINX_PATH",
      "/usr/sbin/nginx",
      "the reverse proxy test",
    );
  if (files.some((file) => file.includes("hugo")))
    process.env.HUGO_PATH = ensureDebianProgram("hugo", "HUGO_PATH", "/usr/bin/hugo", "the publishing test");

  // PostgreSQL runs only when asked for (TEST_DATABASE_URL): a server that merely listens on 5432
  // no longer doubles every database test.
  if (!process.env.TEST_DATABASE_URL) {
    const left = files.filter((file) => NEEDS_POSTGRES.some((pattern) => pattern.test(file)));
    if (left.length > 0) {
      console.log(
        `${left.length} files run several server processes on one database, which needs PostgreSQL ` +
          "(test/scale and the *-on-postgresql-* files): left out; set " +
          "TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test to run them (CI's postgres part does).",
      );
      files.splice(0, files.length, ...files.filter((file) => !left.includes(file)));
      if (files.length === 0) return 1;
    }
  } else {
    console.log(
      process.env.TEST_ENGINES === "postgres"
        ? "Database tests run on PostgreSQL only (TEST_ENGINES=postgres)."
        : "Database tests run on PGlite and PostgreSQL (TEST_DATABASE_URL).",
    );
  }

  const env = { ...process.env, NODE_ENV: "test", POSSEKIT_SOURCE: "1" };
  // The embedded databases open from one migrated snapshot, made here once per run (or found).
  if (files.some((file) => tierOfFile.get(file) !== "unit") && !env.POSSEKIT_TEST_SNAPSHOT) {
    const made = spawnSync(process.execPath, [...TYPESCRIPT, "test/helpers/database-snapshot.ts"], {
      env,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
    if (made.status !== 0) {
      console.error("Could not make the tests' database snapshot (above).");
      return 1;
    }
    env.POSSEKIT_TEST_SNAPSHOT = made.stdout.trim();
  }
  // In every test process: while unit tests run, a database, a socket or a child process throws.
  const guard = ["--import", "./test/helpers/unit-tier-guard.mjs"];

  const { entries, cleanUp } = processesFor(files, (file) => tierOfFile.get(file), options.runner);
  // The timeout guards against a hang, not a slow machine: the fuzz and load files take minutes when
  // the two cores are shared with other work, and set tighter limits on their own tests.
  try {
    const result = spawnSync(
      process.execPath,
      [
        ...V8_FLAGS,
        ...TYPESCRIPT,
        ...guard,
        "--test",
        "--test-concurrency=2",
        "--test-timeout=600000",
        ...options.runner,
        ...entries,
      ],
      // POSSEKIT_SOURCE: the possekit commands the tests start run src/ too, never a build in dist/.
      { stdio: "inherit", env },
    );
    return result.status ?? 1;
  } finally {
    cleanUp();
  }
};

/**
 * What node --test is given: the files of each tier in groups (system files SYSTEM_GROUP_SIZE to one,
 * the others GROUP_SIZE), each group a generated file in a temp folder that imports its test files,
 * each inside a suite named by the file's path; ALONE and SYSTEM_ALONE files as they are. Few files,
 * --watch or --test-only: every file as it is.
 */
function processesFor(files, tierOf, runner) {
  const alone = (file) =>
    ALONE.includes(file) || (tierOf(file) === "system" && SYSTEM_ALONE.some((pattern) => pattern.test(file)));
  const system = files.filter((file) => tierOf(file) === "system" && !alone(file));
  // Unit files apart from integration files: their groups are the unit tier's, guarded as such.
  const unit = files.filter((file) => tierOf(file) === "unit" && !alone(file));
  const integration = files.filter((file) => tierOf(file) === "integration" && !alone(file));
  // --test-only would skip the files' suites, which are not marked only.
  const asTheyAre = runner.some((flag) => flag.startsWith("--watch") || flag === "--test-only");
  // A run of a few files (a mutant's, a developer's, the PostgreSQL part's integration files) keeps
  // a process per file, each kind counted apart.
  const grouped = [system, unit, integration].filter((list) => list.length > GROUP_SIZE);
  if (GROUP_SIZE <= 1 || grouped.length === 0 || asTheyAre) return { entries: files, cleanUp: () => {} };
  const folder = mkdtempSync(join(tmpdir(), "possekit-test-groups-"));
  const entries = files.filter((file) => !grouped.some((list) => list.includes(file)));
  const write = (group) => {
    // One file is a group of no use: it runs as it is.
    if (group.length === 1) return entries.push(group[0]);
    const entry = join(folder, `${String(entries.length + 1).padStart(2, "0")}.test.mjs`);
    writeFileSync(entry, groupEntry(group, { unit: group.every((file) => tierOf(file) === "unit") }));
    entries.push(entry);
  };
  for (const list of grouped) {
    const size = list === system ? SYSTEM_GROUP_SIZE : GROUP_SIZE;
    for (let start = 0; start < list.length; start += size) write(list.slice(start, start + size));
  }
  return { entries, cleanUp: () => rmSync(folder, { recursive: true, force: true }) };
}

process.exit(main());
