#!/usr/bin/env node
// `npm test`: finds every test file and runs them with Node's test runner through tsx.
// Browser tests need Chromium: found at CHROMIUM_PATH or /usr/bin/chromium, else installed from
// Debian's packages when we are root (never downloaded by Playwright, which cannot work offline).
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

function ensureChromium() {
  const path = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  if (existsSync(path)) return path;
  if (process.getuid?.() !== 0) {
    console.error(`Chromium is not at ${path}. Install it (apt-get install chromium) or set CHROMIUM_PATH.`);
    process.exit(1);
  }
  console.log("Installing Debian's chromium for the browser tests…");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  const install = spawnSync("apt-get", ["install", "-y", "-qq", "chromium"], { stdio: "inherit", env });
  if (install.status !== 0 || !existsSync(path)) {
    console.error("Could not install chromium; the browser tests cannot run.");
    process.exit(1);
  }
  return path;
}

/**
 * The publishing end-to-end test builds a real site with Hugo: found at HUGO_PATH or /usr/bin/hugo,
 * else installed from Debian's packages when we are root, like Chromium.
 */
function ensureHugo() {
  const path = process.env.HUGO_PATH ?? "/usr/bin/hugo";
  if (existsSync(path)) return path;
  if (process.getuid?.() !== 0) {
    console.error(`Hugo is not at ${path}. Install it (apt-get install hugo) or set HUGO_PATH.`);
    process.exit(1);
  }
  console.log("Installing Debian's hugo for the publishing test…");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  const install = spawnSync("apt-get", ["install", "-y", "-qq", "hugo"], { stdio: "inherit", env });
  if (install.status !== 0 || !existsSync(path)) {
    console.error("Could not install hugo; the publishing end-to-end test cannot run.");
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
if (files.some((file) => file.includes("/e2e/"))) process.env.CHROMIUM_PATH = ensureChromium();
if (files.some((file) => file.includes("hugo"))) process.env.HUGO_PATH = ensureHugo();

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
