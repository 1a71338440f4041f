// Module hooks that run possekit's TypeScript on Node 20 (registered by ./register.mjs): each .ts
// file of ours is compiled by esbuild to JavaScript with an inline source map, and the result kept
// on disk under a hash of what shapes it (esbuild's version, the options below, the file's text).
// Why not tsx: every test file is a process of its own, and loading the modules of one endpoint
// test (test/endpoint/endpoint-server.ts) cost 1.75 s of CPU through tsx and 1.07 s through these
// hooks: tsx also hooks CommonJS, resolves every import itself and reads its cache through more
// layers; these hooks leave everything but our .ts files to Node and, when the cache holds a file,
// never load esbuild at all (docs/testing.md, "Per-file cost").
//
// The cache is safe to share: an entry is named by the hash of its inputs, so an edited file, another
// esbuild or other options never read a stale one; entries are written beside and renamed into place,
// so processes running side by side never read half of one; the output does not depend on where the
// file lives (the source map names the file relative to itself), so copies of the tree (the mutants')
// share it. POSSEKIT_TS_CACHE moves it; it holds one small file per version of a source file.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);

/**
 * esbuild's transform options. tsconfig.json's settings that change the JavaScript are passed on:
 * verbatimModuleSyntax keeps every import not marked `type` (a module imported for its side effects
 * still runs), and target ES2023 defines class fields as JavaScript does. The source map holds the
 * mappings but not the source (sourcesContent): Node decodes every module's map as it loads it, and
 * the source inside doubled that work, about 0.4 s of CPU per test process that starts the host;
 * to show the line of an error, Node reads the .ts file the map names instead.
 */
const OPTIONS = {
  loader: "ts",
  format: "esm",
  target: "node20",
  sourcemap: "inline",
  sourcesContent: false,
  tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true, target: "ES2023" } },
};

const CACHE =
  process.env.POSSEKIT_TS_CACHE || join(tmpdir(), `possekit-typescript-${process.getuid?.() ?? "user"}`);

/** What besides the source decides the output: read once, esbuild itself is loaded only on a miss. */
const SALT = `${JSON.parse(readFileSync(require.resolve("esbuild/package.json"), "utf8")).version}\0${JSON.stringify(OPTIONS)}\0`;

let esbuild;

/** Our TypeScript: a .ts file outside node_modules (a dependency's .ts files are not ours to run). */
function isOurs(url) {
  if (!url.startsWith("file:")) return false;
  const { pathname } = new URL(url);
  return pathname.endsWith(".ts") && !pathname.endsWith(".d.ts") && !pathname.includes("/node_modules/");
}

async function compile(source, file) {
  const key = createHash("sha256").update(SALT).update(file).update("\0").update(source).digest("hex");
  const entry = join(CACHE, key.slice(0, 2), `${key}.js`);
  try {
    return readFileSync(entry, "utf8");
  } catch {}
  esbuild ??= await import("esbuild");
  // sourcefile is the file's own name: Node resolves a source map's sources against the module's
  // URL, so stack traces name the right file wherever the tree is copied.
  const { code } = esbuild.transformSync(source, { ...OPTIONS, sourcefile: file });
  try {
    mkdirSync(join(CACHE, key.slice(0, 2)), { recursive: true });
    const scratch = `${entry}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    writeFileSync(scratch, code);
    renameSync(scratch, entry);
  } catch {
    // A cache that cannot be written (read-only, full) only costs the next run a compile.
  }
  return code;
}

export async function load(url, context, nextLoad) {
  if (!isOurs(url)) return nextLoad(url, context);
  const path = fileURLToPath(url);
  return {
    format: "module",
    source: await compile(readFileSync(path, "utf8"), basename(path)),
    shortCircuit: true,
  };
}
