import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import { setFlagsFromString } from "node:v8";
import { PGlite } from "@electric-sql/pglite";
import type { Database, Queryable, QueryResult } from "../../contract/database.ts";
import { keepingTheLoopAlive } from "./keeping-the-loop-alive.ts";
import { runPgliteChild, templatePath, unpackTemplate } from "./pglite-template.ts";

/**
 * PostgreSQL's settings for one user on a small machine, over PGlite's own start parameters. The
 * shared buffers live in the WebAssembly memory, which never shrinks: at PostgreSQL's 128 MB the
 * server sat at about 440 MB. Measured one at a time (decision 0030; a PGlite process with 20,000 rows,
 * idle RSS): PGlite's defaults 317 MB; shared_buffers 32 MB 196, 16 MB 193, 8 MB 182;
 * max_connections 1 (its shared memory is sized for 100) 298; wal_buffers 256 kB, work_mem 1 MB,
 * temp_buffers 1 MB no change (323), so they are left alone; 16 MB with one connection 165. The
 * rows stay in the operating system's page cache, so a buffer miss is a copy, not a disk read.
 */
export const PGLITE_SETTINGS = ["shared_buffers=16MB", "max_connections=1"];

export const startParams = () => [
  ...PGlite.defaultStartParams,
  ...PGLITE_SETTINGS.flatMap((setting) => ["-c", setting]),
];

// Without a template (a clone not built, or another PGlite than the build's), initdb runs in a child
// process of its own: initdb grows the WebAssembly memory of three instances (the
// database, initdb's and a bootstrap one) to 700–900 MB, and that memory is never given back to the
// system. In a child it is given back when the child exits; the server then opens a ready folder.
const INITDB_CHILD = `
const [moduleUrl, folder, params] = process.argv.slice(1);
const { PGlite } = await import(moduleUrl);
const pglite = await PGlite.create({ dataDir: folder, startParams: JSON.parse(params) });
await pglite.close();
`;

const isEmptyOrMissing = (folder: string) => !existsSync(folder) || readdirSync(folder).length === 0;

/**
 * A first start: the database is made next to the folder, from the template the build shipped
 * (pglite-template.ts) or else by initdb in a child process, then moved into place in one rename,
 * so a start that dies half-way leaves no half-made database behind (only a `<folder>.initdb` that
 * the next start removes). Returns how, or null when the folder already holds something.
 */
export async function createDatabaseFolder(
  dataDir: string,
  template: string | null = templatePath(),
): Promise<"template" | "initdb" | null> {
  if (!isEmptyOrMissing(dataDir)) return null;
  const scratch = `${dataDir}.initdb`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true, mode: 0o700 });
  const how = template && existsSync(template) ? "template" : "initdb";
  try {
    if (how === "template" && template) unpackTemplate(template, scratch);
    else await runPgliteChild(INITDB_CHILD, scratch, startParams());
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw new Error(`Could not create the embedded database in ${dataDir}: ${(error as Error).message}`);
  }
  if (existsSync(dataDir)) rmdirSync(dataDir);
  renameSync(scratch, dataDir);
  return how;
}

export interface PgliteOptions {
  /** The empty database a first start copies; null runs initdb instead. Defaults to the build's. */
  template?: string | null;
  /**
   * A database dumped with PGlite's dumpDataDir to start from instead of initdb (the tests' migrated
   * snapshot: test/helpers/database-snapshot.ts). Only for a database in memory.
   */
  loadDataDir?: Blob;
}

/**
 * The database holds the targets' ledger and the session revocations: only the server's own user may
 * read it. PGlite's file system layer writes files as 0666 whatever the umask, so the folder is made
 * 0700 (nobody else can reach anything inside, whatever its mode) and every file in it is set to 0600
 * when the database opens and when it closes.
 */
function ownerOnly(folder: string): void {
  chmodSync(folder, 0o700);
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) ownerOnly(path);
    else if (entry.isFile()) chmodSync(path, 0o600);
  }
}

/** The embedded database, which can also copy itself while it runs. */
export interface EmbeddedDatabase extends Database {
  /**
   * The database folder as it is between two transactions, checkpointed (a ustar archive, as
   * PGlite's dumpDataDir writes it): what a backup of a running server holds.
   */
  snapshot(): Promise<Uint8Array>;
}

export const isEmbedded = (database: Database): database is EmbeddedDatabase =>
  database.engine === "pglite" && typeof (database as Partial<EmbeddedDatabase>).snapshot === "function";

/** The embedded database: PostgreSQL compiled to WebAssembly, kept in a folder (or in memory). */
export async function openPglite(dataDir?: string, options: PgliteOptions = {}): Promise<EmbeddedDatabase> {
  // Any folder made on the way (the data folder itself, on a first start) is the owner's alone too.
  if (dataDir) {
    await createDatabaseFolder(dataDir, options.template === undefined ? templatePath() : options.template);
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  }
  // PostgreSQL's WebAssembly is optimised function by function as it runs hot, by default on up to
  // every V8 worker at once; each worker's malloc arena keeps what the optimiser freed (tens of MB
  // for PostgreSQL's largest functions). One at a time, the server idles about 30 MB lower, in any
  // host, whatever flags node was started with (decision 0030).
  setFlagsFromString("--wasm-num-compilation-tasks=1");
  const pglite = await keepingTheLoopAlive(() =>
    PGlite.create(
      dataDir
        ? { dataDir, startParams: startParams() }
        : {
            startParams: startParams(),
            ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
          },
    ),
  );
  if (dataDir) ownerOnly(dataDir);
  // PGlite runs each statement on this thread and answers through microtasks, so work that chains
  // statements without other I/O (a batch's start and each of its posts, a feed's entries) would hold
  // every request and timer until it awaits something else: 19 statements, 125 ms of CPU, at a
  // batch's start. A turn of the event loop after each statement bounds a hold to one statement, as
  // on PostgreSQL, whose answers come over a socket (decision 0078). A request's statement still
  // waits for an open transaction: PGlite queues it behind the transaction's end.
  const wrap = (target: Pick<PGlite, "query" | "exec">): Queryable => ({
    async exec(sql: string): Promise<void> {
      await target.exec(sql);
      await nextTurn();
    },
    async query<Row>(sql: string, params: unknown[] = []): Promise<QueryResult<Row>> {
      const result = await target.query<Row>(sql, params);
      await nextTurn();
      return { rows: result.rows, rowCount: result.affectedRows ?? 0 };
    },
  });
  const root = wrap(pglite);
  return {
    engine: "pglite",
    query: root.query,
    exec: root.exec,
    transaction: (fn) => pglite.transaction((tx) => fn(wrap(tx))),
    // Inside a transaction of its own: PGlite runs no other caller's statement meanwhile, so the
    // copy never falls between two statements of someone else's transaction. The CHECKPOINT writes
    // every change to the table files, so a restore starts without replaying the log.
    snapshot: () =>
      pglite.transaction(async (tx) => {
        await tx.exec("CHECKPOINT");
        return new Uint8Array(await (await pglite.dumpDataDir("none")).arrayBuffer());
      }),
    close: async () => {
      await pglite.close();
      if (dataDir) ownerOnly(dataDir);
    },
  };
}
