// Which code the possekit command runs. An installed package has only its compiled JavaScript
// (dist/). A clone has its TypeScript (src/) as well, and there dist/ runs only when it was built
// from exactly the sources that are there now (npm run build records them in dist/); otherwise the
// TypeScript runs through tsx, so an old build never runs by mistake in development.
// Plain JavaScript with no dependencies: scripts/build.mjs records the sources with these functions.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";

export const STAMP_FILE = ".built-from.json";
/** What the build reads besides src/: a change to either makes another dist/. */
const BUILD_INPUTS = ["tsconfig.json", "tsconfig.build.json"];

function filesUnder(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}

/** The build's inputs, relative to root, sorted. */
function inputs(root) {
  const files = [
    ...filesUnder(join(root, "src")),
    ...BUILD_INPUTS.map((name) => join(root, name)).filter((path) => existsSync(path)),
  ];
  return files.map((file) => relative(root, file)).sort();
}

/** Each input's size and modification time: a quick look that needs no reading. */
function looks(root, files) {
  return Object.fromEntries(
    files.map((path) => {
      const stat = statSync(join(root, path));
      return [path, [stat.size, stat.mtimeMs]];
    }),
  );
}

/**
 * A hash of the inputs' names and contents. node:crypto is loaded here, only when a hash is needed:
 * loading it costs about 25 ms, a sixth of the 150 ms `possekit --help` may take (issue 18).
 */
function contentHash(root, files) {
  const { createHash } = createRequire(import.meta.url)("node:crypto");
  const hash = createHash("sha256");
  for (const path of files) {
    hash.update(`${path}\0`);
    hash.update(readFileSync(join(root, path)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

/** What dist/ records of the sources it is built from (read before compiling). */
export function sourceStamp(root) {
  const files = inputs(root);
  return { hash: contentHash(root, files), files: looks(root, files) };
}

/**
 * Whether the sources are those of the stamp. When every file has the size and time it had, they
 * are (no reading); otherwise (a checkout touches files without changing them) the contents decide.
 */
export function builtFrom(root, stamp) {
  const files = inputs(root);
  const now = looks(root, files);
  if (JSON.stringify(now) === JSON.stringify(stamp.files)) return true;
  return contentHash(root, files) === stamp.hash;
}

function readStamp(path) {
  try {
    const stamp = JSON.parse(readFileSync(path, "utf8"));
    return typeof stamp?.hash === "string" && typeof stamp.files === "object" ? stamp : null;
  } catch {
    return null;
  }
}

/**
 * The module to run for `name` (a path under src/ without its extension, e.g. "cli") and how:
 * `{ kind: "dist" | "source", url, reason }`. POSSEKIT_SOURCE=1 asks for the TypeScript (npm test
 * sets it: the tests test the sources, whatever dist/ holds). Throws when neither can run.
 */
export function pickEntry(root, name, env = process.env) {
  const source = join(root, "src", `${name}.ts`);
  const compiled = join(root, "dist", `${name}.js`);
  const choose = (kind, path, reason) => ({ kind, url: pathToFileURL(path).href, reason });
  if (!existsSync(source)) {
    if (existsSync(compiled)) return choose("dist", compiled, "an installed package");
    throw new Error(`possekit: ${compiled} is missing; install the package again.`);
  }
  if (env.POSSEKIT_SOURCE === "1") return choose("source", source, "POSSEKIT_SOURCE=1");
  const stamp = existsSync(compiled) ? readStamp(join(root, "dist", STAMP_FILE)) : null;
  if (!stamp) return choose("source", source, "no build in dist/");
  if (!builtFrom(root, stamp)) return choose("source", source, "src/ changed since dist/ was built");
  return choose("dist", compiled, "dist/ is built from these sources");
}
