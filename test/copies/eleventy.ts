// Eleventy for the tests, from the npm registry, installed once into a cache folder outside the clone
// and keyed by test/copies/eleventy/package-lock.json (as .ci/run installs the Bluesky interop part).
// Not a devDependency: @11ty/eleventy 3.1.8 brings 127 packages (23 MB) to every `npm install` of
// this project for one test; here only the system tier pays for it, once per machine (about 15 s).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../../src/server/package-root.ts";

const RECIPE = join(PACKAGE_ROOT, "test", "copies", "eleventy");
const CACHE_ROOT = process.env.POSSEKIT_INTEROP_CACHE ?? "/var/cache/possekit-interop";

/** The path of Eleventy's command (run it with `node`), installing it first when it is not cached. */
export function ensureEleventy(): string {
  const lock = readFileSync(join(RECIPE, "package-lock.json"));
  const key = createHash("sha256").update(lock).digest("hex").slice(0, 16);
  const folder = join(CACHE_ROOT, `eleventy-${key}`);
  const command = join(folder, "node_modules", "@11ty", "eleventy", "cmd.cjs");
  if (existsSync(join(folder, ".complete"))) return command;
  // Installed beside and moved into place: a failed install never passes for a cached one.
  const scratch = `${folder}.partial.${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  for (const file of ["package.json", "package-lock.json"])
    copyFileSync(join(RECIPE, file), join(scratch, file));
  process.stderr.write(`eleventy: npm ci into ${folder} (once per machine)\n`);
  // npm's output goes to stderr: the test runner's stdout stays its report.
  execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--ignore-scripts"], {
    cwd: scratch,
    stdio: ["ignore", 2, 2],
  });
  writeFileSync(join(scratch, ".complete"), new Date().toISOString());
  // Another process (CI's system and mutation parts run side by side) may have finished first and
  // be running Eleventy from the folder: keep its install, never remove it under it.
  if (existsSync(join(folder, ".complete"))) rmSync(scratch, { recursive: true, force: true });
  else {
    rmSync(folder, { recursive: true, force: true });
    try {
      renameSync(scratch, folder);
    } catch (error) {
      if (!existsSync(join(folder, ".complete"))) throw error;
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  return command;
}
