// A program a figure needs (Chromium, git, Hugo): found at its path, else installed from Debian's
// package when the bench runs as root, as scripts/test.mjs does for the tests; else the figure
// throws a one-line reason, which bench/run.ts reports as SKIP while the run goes on.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const attempted = new Set<string>();

export function ensureDebianProgram(pkg: string, path: string, forWhat: string): string {
  if (existsSync(path)) return path;
  if (process.getuid?.() !== 0)
    throw new Error(
      `${pkg} is not at ${path} and the bench is not root: apt-get install ${pkg} to measure ${forWhat}`,
    );
  if (!attempted.has(pkg)) {
    attempted.add(pkg);
    process.stderr.write(`Installing Debian's ${pkg} for ${forWhat}…\n`);
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    spawnSync("apt-get", ["update", "-qq"], { stdio: ["ignore", 2, 2], env });
    spawnSync("apt-get", ["install", "-y", "-qq", pkg], { stdio: ["ignore", 2, 2], env });
  }
  if (!existsSync(path))
    throw new Error(`could not install Debian's ${pkg} (apt-get failed): ${forWhat} not measured`);
  return path;
}

/** Debian's Chromium for the page figures: CHROMIUM_PATH, else /usr/bin/chromium (installed if absent). */
export function ensureChromium(forWhat: string): string {
  const path = ensureDebianProgram("chromium", process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", forWhat);
  process.env.CHROMIUM_PATH = path;
  return path;
}

/** git for the figures that publish to a repository. */
export function ensureGit(forWhat: string): string {
  const found = spawnSync("git", ["--version"], { stdio: "ignore" });
  if (found.status === 0) return "git";
  return ensureDebianProgram("git", "/usr/bin/git", forWhat);
}
