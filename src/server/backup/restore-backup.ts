// `possekit restore <file>`: a backup into a data folder that holds nothing yet. Never over an
// existing server's data: mixing two databases' ledgers is how a post gets sent twice. What the
// backup's server was sending when it was taken is left as a crashed process leaves it, and the
// restored server's start resolves it the same way (Runs.recoverAfterCrash: resent with the same
// idempotency key where the target honours one, else marked unknown for the user to confirm).
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { z } from "zod";
import { KEY_VARIABLE } from "../accounts/secret-box.ts";
import { folderHolder } from "../database/folder-lock.ts";
import { unpackDatabase } from "../database/pglite-template.ts";
import { readTar, type TarEntry } from "../database/tar.ts";
import { recordBackup } from "./backup-record.ts";
import { KEY_FILES, keyFilesIn } from "./kept-files.ts";
import {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  type BackupManifest,
  DATABASE_ENTRY,
  MANIFEST,
} from "./make-backup.ts";

/** A restore that cannot go ahead, said as one line for the person running it. */
export class RestoreError extends Error {
  override name = "RestoreError";
}

export interface RestoreTarget {
  dataDir: string;
  /** false, a postgres:// URL, memory: or the embedded database's folder. */
  database: false | string;
  mediaFolder: string;
}

const manifestSchema = z.object({
  format: z.literal(BACKUP_FORMAT),
  version: z.literal(BACKUP_VERSION),
  createdAt: z.iso.datetime(),
  engine: z.enum(["pglite", "postgres", "none"]),
  database: z.boolean(),
  keys: z.array(z.string()),
  media: z.number().int().min(0),
  fromEnvironment: z.array(z.string()).optional(),
});

const holdsSomething = (folder: string) => existsSync(folder) && readdirSync(folder).length > 0;

/** Reads a backup file's archive and its manifest; a file that is none says so. */
export function openBackup(
  file: Uint8Array,
  what: string,
): { manifest: BackupManifest; entries: TarEntry[] } {
  let archive: Buffer;
  try {
    archive = gunzipSync(file);
  } catch {
    throw new RestoreError(`${what} is not a possekit backup (it is not gzip-compressed)`);
  }
  let entries: TarEntry[];
  try {
    entries = readTar(archive, what);
  } catch (error) {
    throw new RestoreError((error as Error).message);
  }
  const manifestEntry = entries.find((entry) => entry.name === MANIFEST && entry.data);
  let raw: unknown = null;
  try {
    raw = JSON.parse(Buffer.from(manifestEntry?.data ?? []).toString("utf8"));
  } catch {
    // Said below.
  }
  const header = z.object({ format: z.literal(BACKUP_FORMAT), version: z.number() }).safeParse(raw);
  if (!header.success) throw new RestoreError(`${what} is not a possekit backup (no ${MANIFEST} in it)`);
  if (header.data.version !== BACKUP_VERSION)
    throw new RestoreError(
      `${what} is a backup of format ${header.data.version}; this possekit reads format ${BACKUP_VERSION}: restore it with the version that made it`,
    );
  const manifest = manifestSchema.safeParse(raw);
  if (!manifest.success)
    throw new RestoreError(`${what} is damaged (its ${MANIFEST} is not one possekit wrote)`);
  return { manifest: manifest.data, entries };
}

const isEmbeddedFolder = (database: false | string): database is string =>
  database !== false && database !== "memory:" && !/^postgres(ql)?:\/\//.test(database);

/**
 * Restores `file` into `target`. Returns the manifest, and what the person must still do (a backup
 * without the database, restored beside PostgreSQL).
 */
export function restoreBackup(
  file: Uint8Array,
  what: string,
  target: RestoreTarget,
): { manifest: BackupManifest; notes: string[] } {
  const { manifest, entries } = openBackup(file, what);
  const notes: string[] = [];
  const folder = isEmbeddedFolder(target.database) ? target.database : null;
  const embedded = folder !== null;
  if (folder && folderHolder(folder))
    throw new RestoreError(
      `${folder} is held by a running server: stop it, and restore into an empty data folder`,
    );
  for (const [path, option] of [
    [target.dataDir, "application.dataDir"],
    ...(folder ? [[folder, "application.database"] as const] : []),
    [target.mediaFolder, "media.folder"],
  ] as const) {
    if (holdsSomething(path))
      throw new RestoreError(
        `${option}: ${path} is not empty; restore only into an empty data folder (move this one aside, or point ${option} at a new folder)`,
      );
  }
  if (manifest.database && !embedded)
    throw new RestoreError(
      `the backup holds an embedded database, but ${target.database === false ? "application.database is false" : "the configuration names PostgreSQL (DATABASE_URL or application.database)"}: restore it with application.database unset or a folder`,
    );
  if (!manifest.database && embedded)
    notes.push(
      `The backup holds no database (it was taken from ${manifest.engine === "postgres" ? "PostgreSQL: restore that with pg_restore from your pg_dump" : "a server without one"}); the server will start with an empty one`,
    );
  if (!manifest.database && manifest.engine === "postgres" && !embedded)
    notes.push(
      "The database is not in the backup: restore PostgreSQL from your pg_dump (pg_restore) before starting",
    );

  if (manifest.fromEnvironment?.includes(KEY_VARIABLE))
    notes.push(
      `The backed-up server took ${KEY_VARIABLE} from its environment, so it is not in the backup: start the restored server with the same ${KEY_VARIABLE}, or its connected accounts cannot be opened and need reconnecting`,
    );

  mkdirSync(target.dataDir, { recursive: true, mode: 0o700 });
  const database = entries.find((entry) => entry.name === DATABASE_ENTRY && entry.data);
  if (folder && database?.data) {
    // Beside the folder first, then one rename: a restore that fails half-way leaves no half-made
    // database a start would open.
    const scratch = `${folder}.restore`;
    rmSync(scratch, { recursive: true, force: true });
    try {
      unpackDatabase(database.data, scratch, `${what} (its database)`);
    } catch (error) {
      rmSync(scratch, { recursive: true, force: true });
      throw new RestoreError((error as Error).message);
    }
    if (existsSync(folder)) rmSync(folder, { recursive: true });
    renameSync(scratch, folder);
  }
  const keyNames = new Set<string>(KEY_FILES);
  for (const entry of entries) {
    if (!entry.data) continue;
    const [folder, name, ...deeper] = entry.name.split("/");
    if (!name || deeper.length > 0) continue;
    // Only the names a backup writes: an archive cannot place a file anywhere else.
    if (folder === "keys" && keyNames.has(name))
      writeFileSync(join(target.dataDir, name), entry.data, { mode: 0o600 });
    else if (folder === "media" && !name.startsWith(".")) {
      mkdirSync(target.mediaFolder, { recursive: true, mode: 0o700 });
      writeFileSync(join(target.mediaFolder, name), entry.data, { mode: 0o600 });
    }
  }
  // The keys restored are in the backup they came from: possekit doctor need not ask for another.
  recordBackup(target.dataDir, new Date(manifest.createdAt), keyFilesIn(target.dataDir));
  return { manifest, notes };
}
