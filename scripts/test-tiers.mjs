// Which tier a test file belongs to, by where it lives (decision 0059, docs/testing.md "Tiers"), and
// the check that keeps a unit test from living where the unit tier would not find it.
// scripts/test.mjs runs both; test/lint/unit-tests-live-beside-their-code.test.ts shows the check
// refuses a misplaced file.
//
//   src/**/*.test.ts   unit: beside the module it tests; no database, socket or child process
//   SYSTEM below       system: the possekit command, the browser, several instances
//   any other test/    integration: database and HTTP, in process
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** Processes: the command as a user runs it, a real browser, several server instances. */
export const SYSTEM = [
  "test/backup/backup-mid-batch-restored-sends-nothing-twice.test.ts",
  "test/backup/connected-account-secrets-open-after-restore.test.ts",
  "test/cli/",
  "test/deploy/behind-nginx-with-https.test.ts",
  "test/e2e/",
  "test/lint/",
  "test/scale/",
  "test/copies/copies-json-examples-build-the-links-into-hugo-and-eleventy-pages.test.ts",
  "test/endpoint/cli-syndicate-prints-ndjson-and-exits-3-while-a-run-holds-the-lease.test.ts",
  "test/schedule/sigkill-mid-run-restart-completes-without-duplicates.test.ts",
  "test/schedule/two-instances-on-postgresql-send-each-due-post-once.test.ts",
  "test/follow/two-instances-on-postgresql-carry-out-each-follow-up-once.test.ts",
  "test/publishing/demo-posts-go-live-and-show-their-copies-with-nobody-clicking.test.ts",
  "test/publishing/git-store-pushes-at-start-what-a-killed-process-committed.test.ts",
  "test/publishing/hugo-site-built-from-the-remote-shows-the-post-and-its-copy.test.ts",
  "test/sources/sigkill-between-copy-and-write-back-sends-once-and-links-after-restart.test.ts",
];

/** A file's tier: every test under src/ is unit; under test/, SYSTEM's files and folders are system. */
export function tierOf(file) {
  if (file.startsWith("src/")) return "unit";
  const inSystem = SYSTEM.some((entry) => (entry.endsWith("/") ? file.startsWith(entry) : file === entry));
  return inSystem ? "system" : "integration";
}

/**
 * What a test imports that can do no I/O by itself: Node's pure modules, the test runner, and
 * libraries that compute. Anything else (node:fs, node:http, child_process, a helper under test/, a
 * sandbox in dev/, Playwright, a database driver) makes the file more than a unit test.
 */
const PURE_IMPORT =
  /^node:(assert|assert\/strict|test|crypto|util|path|url|buffer|string_decoder)$|^(zod|yaml)$/;

/** A module that starts a database, a thread, a socket or a process as soon as it is used. */
const IO_IN_MODULE =
  /from\s+"(node:(child_process|net|http|https|http2|dgram|tls|worker_threads)|@electric-sql\/pglite[^"]*|pg|nodemailer|playwright[^"]*)"/;

/** The specifiers a file imports at run time (`import type` is erased and imports nothing). */
export function runtimeImports(source) {
  return [...source.matchAll(/^import\s+(type\s+)?[^;]*?\s+from\s+"([^"]+)";/gms)]
    .filter((match) => !match[1])
    .map((match) => match[2]);
}

/**
 * Test files under test/ that are unit tests by what they do: they import only pure modules and
 * modules of src/ that start no database, thread, socket or process themselves, and start nothing
 * of the kind in their own text. Such a file belongs beside its module in src/, where the unit tier
 * finds it (and its guard would refuse what it must not do). `root` is the repository's folder;
 * `files` are paths relative to it.
 */
export function misplacedUnitTests(root, files) {
  return files.filter((file) => {
    if (!file.startsWith("test/") || tierOf(file) === "system") return false;
    const path = join(root, file);
    const source = readFileSync(path, "utf8");
    if (/\bnew Worker\(|\bspawn(Sync)?\(|\bfetch\(|\bimport\(/.test(source)) return false;
    return runtimeImports(source).every((specifier) => {
      if (PURE_IMPORT.test(specifier)) return true;
      if (!specifier.startsWith(".")) return false;
      const target = resolve(dirname(path), specifier);
      if (!relative(join(root, "src"), target).match(/^[^.]/)) return false;
      return !IO_IN_MODULE.test(readFileSync(target, "utf8"));
    });
  });
}
