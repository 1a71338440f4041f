// An empty embedded database made once, at build time, and shipped in the package: a first start
// copies it into the new folder instead of running initdb, whose WebAssembly memory (three PGlite
// instances: the database, initdb's and a bootstrap one) peaked at 700–900 MB even in a child
// process that exits (decision 0030). The copy is an unpacked tarball: no PGlite, no child, a few MB.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { brotliDecompressSync } from "node:zlib";
import { PACKAGE_ROOT } from "../package-root.ts";
import { readTar } from "./tar.ts";

/**
 * The PGlite this package runs: a template made by another version may not be a database it can
 * open (PostgreSQL's catalog version), so each template is named by the version that made it.
 */
export function pgliteVersion(): string {
  // PGlite's exports do not include its package.json; it sits two folders above dist/index.js.
  const entry = fileURLToPath(import.meta.resolve("@electric-sql/pglite"));
  const manifest = join(dirname(entry), "..", "package.json");
  return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
}

/** Where the build writes the template for the PGlite installed now, and where a start looks. */
export const templatePath = (root = PACKAGE_ROOT) =>
  join(root, "dist", `pgdata-pglite-${pgliteVersion()}.tar.br`);

// Run by a child process: initdb's memory is given back when it exits. A CHECKPOINT first, so that
// the copy starts without replaying the write-ahead log. Brotli with a 16 MB window finds the three
// near-identical databases (template0, template1, postgres) of the 40 MB tar: 1.6 MB in about 2 s,
// where PGlite's own gzip makes 4.5 MB.
const TEMPLATE_CHILD = `
const [moduleUrl, path, params] = process.argv.slice(1);
const { PGlite } = await import(moduleUrl);
const { writeFileSync } = await import("node:fs");
const { brotliCompressSync, constants } = await import("node:zlib");
const pglite = await PGlite.create({ startParams: JSON.parse(params) });
await pglite.exec("CHECKPOINT");
const tar = Buffer.from(await (await pglite.dumpDataDir("none")).arrayBuffer());
await pglite.close();
writeFileSync(path, brotliCompressSync(tar, { params: {
  [constants.BROTLI_PARAM_QUALITY]: 5,
  [constants.BROTLI_PARAM_LGWIN]: 24,
  [constants.BROTLI_PARAM_SIZE_HINT]: tar.length,
} }));
`;

/**
 * Runs `script` (an ES module reading PGlite's module URL, `path` and the start parameters from
 * argv) in a child process, whose WebAssembly memory is given back when it exits. Rejects with
 * what the child wrote to stderr.
 */
export async function runPgliteChild(script: string, path: string, startParams: string[]): Promise<void> {
  try {
    await promisify(execFile)(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        script,
        import.meta.resolve("@electric-sql/pglite"),
        path,
        JSON.stringify(startParams),
      ],
      { maxBuffer: 8 * 1024 * 1024, env: { PATH: process.env.PATH ?? "" } },
    );
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(stderr || "the PGlite child process failed");
  }
}

/** Makes the template at `path` (the build does, once): initdb in a child process, then its dump. */
export async function writeTemplate(path: string, startParams: string[]): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  await runPgliteChild(TEMPLATE_CHILD, path, startParams);
}

/**
 * Unpacks the template (a brotli-compressed ustar archive, as PGlite's dumpDataDir writes it)
 * into `folder`.
 */
export function unpackTemplate(path: string, folder: string): void {
  unpackDatabase(brotliDecompressSync(readFileSync(path)), folder, `The database template ${path}`);
}

/**
 * Unpacks a database folder dumped by PGlite's dumpDataDir (the template, or a backup's) into
 * `folder`, leaving out the pid file of the instance dumped; `what` names it in errors.
 */
export function unpackDatabase(archive: Uint8Array, folder: string, what: string): void {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  for (const entry of readTar(archive, what)) {
    const target = join(folder, entry.name);
    if (!entry.data) mkdirSync(target, { recursive: true, mode: 0o700 });
    else if (entry.name !== "postmaster.pid") {
      mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
      writeFileSync(target, entry.data, { mode: 0o600 });
    }
  }
  if (!existsSync(join(folder, "PG_VERSION"))) throw new Error(`${what} is damaged (it holds no database)`);
}
