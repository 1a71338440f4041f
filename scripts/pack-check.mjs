#!/usr/bin/env node
// CI: the package as a user gets it (decision 0029). `npm pack` (which builds dist/ first), then in an
// empty folder with no TypeScript tooling: `npm install ./possekit-endpoint-syndicate-*.tgz`, a
// plain .mjs host that imports the plug-in, a feed parsed on its own thread from dist/, `npx possekit
// --help`, and `npx possekit serve` until /health answers 200. Fails, naming what is wrong, when the tarball holds what it must not (tests,
// bench, sources, screenshots) or lacks what it needs (dist/, views, locales, public assets).
//
//   node scripts/pack-check.mjs            check, print the sizes, remove the folder
//   node scripts/pack-check.mjs --keep DIR install into DIR and keep it (the bench measures it);
//                                          the last line printed is JSON: the sizes and paths
//   node scripts/pack-check.mjs --built    pack dist/ as it is, without building it again (CI,
//                                          whose npm install has just built it: decision 0072)
import { execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { builtFrom, STAMP_FILE } from "../bin/entry.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({ options: { keep: { type: "string" }, built: { type: "boolean" } } });
const folder = values.keep ? resolve(values.keep) : mkdtempSync(join(tmpdir(), "possekit-pack-"));
mkdirSync(folder, { recursive: true });
const problems = [];
const check = (ok, problem) => {
  if (!ok) problems.push(problem);
};
const step = (message) => process.stderr.write(`pack-check: ${message}\n`);

function sizeOf(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
}

// 1. The tarball (npm pack runs prepare: a fresh build of dist/). With --built, the dist/ there is
// packed as it is: CI's npm install has just built it (prepare) from the same clone, and building
// it again cost about 45 s of CPU (tsc) in a part that other parts wait for; and a pack that leaves
// dist/ alone can run beside parts whose servers read it. Only when dist/ records exactly the
// sources there now (else it stops: a stale build must never pass for this tree's package).
if (values.built) {
  let stamp = null;
  try {
    stamp = JSON.parse(readFileSync(join(root, "dist", STAMP_FILE), "utf8"));
  } catch {}
  if (!stamp || !builtFrom(root, stamp)) {
    process.stderr.write(
      "pack-check --built: dist/ is not built from the sources here (npm install or npm run build first).\n",
    );
    process.exit(1);
  }
}
step(values.built ? "npm pack (dist/ as built)" : "npm pack");
const [packed] = JSON.parse(
  execFileSync(
    "npm",
    ["pack", "--json", ...(values.built ? ["--ignore-scripts"] : []), "--pack-destination", folder],
    {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    },
  ),
);
const tarball = join(folder, packed.filename);
const files = packed.files.map((file) => file.path);
for (const needed of [
  "bin/possekit.js",
  "bin/entry.js",
  "dist/index.js",
  "dist/index.d.ts",
  "dist/index.js.map",
  "dist/cli.js",
  "dist/contract/index.d.ts",
  "dist/contract/index.js",
  // Where Indiekit reads the plug-in's words: beside the module it imports.
  "dist/locales/en.json",
  "dist/locales/de.json",
  "dist/locales/fr.json",
  "views/layout.njk",
  "locales/en.json",
  "locales/de.json",
  "locales/fr.json",
  "public/style.css",
  "README.md",
  "package.json",
])
  check(files.includes(needed), `the tarball lacks ${needed}`);
check(
  files.some((path) => /^dist\/pgdata-pglite-[^/]+\.tar\.br$/.test(path)),
  "the tarball lacks the empty database a first start copies (dist/pgdata-pglite-<version>.tar.br)",
);
const unwanted = files.filter((path) =>
  /^(src|dev|test|bench|docs|interop|scripts|\.ci|data)\/|^dist\/(sandbox\/|demo\.)|\.test\.|^dist\/\.built-from\.json$|^tsconfig|^biome\.json$/.test(
    path,
  ),
);
check(
  unwanted.length === 0,
  `the tarball holds what a user does not need: ${unwanted.slice(0, 10).join(", ")}`,
);

// 2. An empty folder: a production install of the tarball, with no TypeScript tooling.
const app = join(folder, "app");
rmSync(app, { recursive: true, force: true });
mkdirSync(app);
writeFileSync(join(app, "package.json"), `${JSON.stringify({ name: "a-host", private: true }, null, 2)}\n`);
step(`npm install ${packed.filename} in an empty folder`);
execFileSync("npm", ["install", tarball, "--omit=dev", "--no-audit", "--no-fund", "--loglevel=error"], {
  cwd: app,
  stdio: ["ignore", "ignore", "inherit"],
});
const modules = join(app, "node_modules");
for (const tool of ["typescript", "tsx", "esbuild", "@biomejs/biome", "playwright"])
  check(!existsSync(join(modules, tool)), `a production install holds ${tool}`);

// 3. A plain JavaScript host imports the plug-in.
writeFileSync(
  join(app, "host.mjs"),
  `import EndpointSyndicateDefault, { EndpointSyndicate } from "@possekit/endpoint-syndicate";
const endpoint = new EndpointSyndicate();
if (EndpointSyndicateDefault !== EndpointSyndicate) throw new Error("the default export is not EndpointSyndicate");
process.stdout.write(JSON.stringify({ id: endpoint.id, mountPath: endpoint.mountPath }));
`,
);
step("node host.mjs");
try {
  const imported = JSON.parse(execFileSync(process.execPath, ["host.mjs"], { cwd: app, encoding: "utf8" }));
  check(imported.id === "endpoint-syndicate", `host.mjs: the plug-in's id is ${imported.id}`);
} catch (error) {
  check(false, `host.mjs could not import the plug-in: ${error.stderr ?? error.message}`);
}

// 3b. A feed is parsed on a thread of its own (src/sources/feeds/parse/feed-parser.ts), whose module
// the compiled package must hold and find beside its own, with no TypeScript tooling.
writeFileSync(
  join(app, "feed.mjs"),
  `import { FeedParser } from "./node_modules/@possekit/endpoint-syndicate/dist/sources/feeds/parse/feed-parser.js";
const parser = new FeedParser();
const { feed } = await parser.parse({ url: "https://blog.example/feed.json", body: JSON.stringify({
  version: "https://jsonfeed.org/version/1.1", items: [{ id: "1", url: "https://blog.example/1", content_text: "Hello" }] }) }, 300);
await parser.close();
process.stdout.write(JSON.stringify(feed.entries.map((entry) => entry.contentText)));
`,
);
step("node feed.mjs");
try {
  const texts = JSON.parse(execFileSync(process.execPath, ["feed.mjs"], { cwd: app, encoding: "utf8" }));
  check(texts[0] === "Hello", `feed.mjs: the parse thread read ${JSON.stringify(texts)}`);
} catch (error) {
  check(false, `feed.mjs could not parse a feed on its thread: ${error.stderr ?? error.message}`);
}

// 4. The command: --help, then serve until /health answers.
const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? app };
step("npx possekit --help");
const help = execFileSync("npx", ["--no-install", "possekit", "--help"], { cwd: app, encoding: "utf8", env });
check(help.startsWith("Usage: possekit <command>"), `npx possekit --help printed: ${help.slice(0, 200)}`);

const freePort = () =>
  new Promise((done) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
const port = await freePort();
step(`npx possekit serve (port ${port})`);
const serving = await new Promise((done) => {
  const child = spawn("npx", ["--no-install", "possekit", "serve"], {
    cwd: app,
    env: {
      ...env,
      PORT: String(port),
      HOST: "127.0.0.1",
      SECRET: "pack-check-secret-0123456789abcdef",
      PASSWORD: "pack-check",
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const deadline = Date.now() + 120_000;
  const stop = (result) => {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {}
    done(result);
  };
  const poll = async () => {
    if (child.exitCode !== null) return done({ ok: false, why: `exited ${child.exitCode}: ${stderr}` });
    try {
      const response = await fetch(`http://127.0.0.1:${port}/health`);
      if (response.status === 200) return stop({ ok: true });
    } catch {}
    if (Date.now() > deadline) return stop({ ok: false, why: `no /health 200 in 120 s: ${stderr}` });
    setTimeout(poll, 100);
  };
  poll();
});
check(serving.ok, `npx possekit serve did not start: ${serving.why}`);

const sizes = {
  tarball: statSync(tarball).size,
  unpacked: packed.unpackedSize,
  files: files.length,
  install: sizeOf(modules),
  app,
  tarballPath: tarball,
};
if (!values.keep) rmSync(folder, { recursive: true, force: true });
if (problems.length > 0) {
  process.stderr.write(`pack-check failed:\n${problems.map((p) => `  - ${p}`).join("\n")}\n`);
  process.exit(1);
}
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
step(
  `ok: tarball ${mb(sizes.tarball)} (${sizes.files} files, ${mb(sizes.unpacked)} unpacked); production install ${mb(sizes.install)}`,
);
process.stdout.write(`${JSON.stringify(sizes)}\n`);
