#!/usr/bin/env node
// `npm run build` (and `prepare`, so npm install in a clone builds): compiles src/ to dist/ with tsc
// (.js, .d.ts, source maps with their sources inside), then records the sources it was built from,
// which bin/possekit.js compares with src/ before it runs dist/ in a clone; and writes the empty
// database a first start copies (src/server/database/pglite-template.ts).
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { STAMP_FILE, sourceStamp } from "../bin/entry.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
// The sources as they are before compiling: an edit during the build leaves dist/ stale, not wrong.
const stamp = sourceStamp(root);
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const compiled = spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], {
  cwd: root,
  stdio: "inherit",
});
if (compiled.status !== 0) {
  rmSync(dist, { recursive: true, force: true });
  console.error("npm run build: tsc failed (above); dist/ removed, so nothing runs half-built code.");
  process.exit(compiled.status ?? 1);
}

// tsc rewrites "./x.ts" to "./x.js" in the JavaScript (rewriteRelativeImportExtensions) but not in
// the declarations, and a host's TypeScript may refuse a ".ts" import in them.
function declarations(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return declarations(path);
    return entry.name.endsWith(".d.ts") ? [path] : [];
  });
}
for (const file of declarations(dist)) {
  const text = readFileSync(file, "utf8");
  const rewritten = text.replace(/(from\s+|import\s*\(\s*)(["'])(\.{1,2}\/[^"']+)\.ts\2/g, "$1$2$3.js$2");
  if (rewritten !== text) writeFileSync(file, rewritten);
}
// Indiekit reads a plug-in's locale catalogue from locales/ beside the module it imports (dist/) and
// merges it into its own: the plug-in's words alone (syndicate.*), never the host's (status.title,
// session.*, error.* would override Indiekit's own), for the navigation item Indiekit translates.
mkdirSync(join(dist, "locales"));
for (const file of readdirSync(join(root, "locales")).filter((name) => name.endsWith(".json"))) {
  const { syndicate } = JSON.parse(readFileSync(join(root, "locales", file), "utf8"));
  writeFileSync(join(dist, "locales", file), `${JSON.stringify({ syndicate }, null, 2)}\n`);
}
// The empty database a first start copies instead of running initdb (decision 0030: initdb peaked at
// 700–900 MB); made with the compiled code, by the PGlite installed now.
const { templatePath, writeTemplate } = await import("../dist/server/database/pglite-template.js");
const { startParams } = await import("../dist/server/database/pglite.js");
await writeTemplate(templatePath(root), startParams());
writeFileSync(join(dist, STAMP_FILE), `${JSON.stringify(stamp)}\n`);
console.error(`Built dist/ from src/ (sources ${stamp.hash.slice(0, 12)}).`);
