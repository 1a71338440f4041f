#!/usr/bin/env node
// `npm test`: finds every test file and runs them with Node's test runner through tsx.
// Browser tests need Chromium: found at CHROMIUM_PATH or /usr/bin/chromium, else installed from
// Debian's packages when we are root (never downloaded by Playwright, which cannot work offline).
// The publishing end-to-end test needs Hugo: HUGO_PATH or /usr/bin/hugo, installed the same way.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

function findTests(folder) {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith(".test.ts") ? [path] : [];
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

/** The machine's own PostgreSQL, when one answers: every database test then runs on both engines. */
async function findLocalPostgres() {
  const url = "postgres://postgres@127.0.0.1:5432/test";
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return url;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => {});
  }
}

const filter = process.argv.slice(2);
const files = findTests("test")
  .filter((file) => filter.length === 0 || filter.some((part) => file.includes(part)))
  .sort();
if (files.length === 0) {
  console.error("No test files matched.");
  process.exit(1);
}
if (files.some((file) => file.includes("/e2e/")))
  process.env.CHROMIUM_PATH = ensureDebianProgram(
    "chromium",
    "CHROMIUM_PATH",
    "/usr/bin/chromium",
    "the browser tests",
  );
if (files.some((file) => file.includes("hugo")))
  process.env.HUGO_PATH = ensureDebianProgram("hugo", "HUGO_PATH", "/usr/bin/hugo", "the publishing test");

if (!process.env.TEST_DATABASE_URL) {
  const local = await findLocalPostgres();
  if (local) {
    process.env.TEST_DATABASE_URL = local;
    console.log(`PostgreSQL answers at ${local}: database tests run on PGlite and PostgreSQL.`);
  }
}
if (!process.env.TEST_DATABASE_URL) {
  const scale = files.filter((file) => file.includes("/scale/"));
  if (scale.length > 0) {
    console.error(
      `test/scale needs PostgreSQL (several server processes share one database): set TEST_DATABASE_URL,\n` +
        `or run PostgreSQL at 127.0.0.1:5432 with a database "test". Leaving out ${scale.length} files.`,
    );
    files.splice(0, files.length, ...files.filter((file) => !file.includes("/scale/")));
  }
}

// The timeout guards against a hang, not a slow machine: the fuzz and load files take minutes when
// the two cores are shared with other work, and set tighter limits on their own tests.
const result = spawnSync(
  process.execPath,
  ["--import", "tsx", "--test", "--test-concurrency=2", "--test-timeout=600000", ...files],
  // POSSEKIT_SOURCE: the possekit commands the tests start run src/ too, never a build in dist/.
  { stdio: "inherit", env: { ...process.env, NODE_ENV: "test", POSSEKIT_SOURCE: "1" } },
);
process.exit(result.status ?? 1);
