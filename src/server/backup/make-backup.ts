// A backup file: one gzipped ustar archive holding what a restored server needs to carry on where
// this one was — the embedded database as it is between two transactions, the data folder's keys
// (kept-files.ts), and the uploaded files. On PostgreSQL the database is not in it: pg_dump copies
// a shared database better than we could (docs/deploying.md); the keys and uploads still are.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type { Database } from "../../contract/database.ts";
import { isEmbedded } from "../database/pglite.ts";
import { type TarEntry, writeTar } from "../database/tar.ts";
import { recordBackup } from "./backup-record.ts";
import { keyFilesIn, keysGivenBy } from "./kept-files.ts";

export const MANIFEST = "possekit-backup.json";
export const DATABASE_ENTRY = "database.tar";
export const BACKUP_FORMAT = "possekit-backup";
export const BACKUP_VERSION = 1;

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  version: number;
  createdAt: string;
  engine: "pglite" | "postgres" | "none";
  /** Whether database.tar is in it (the embedded database only). */
  database: boolean;
  keys: string[];
  media: number;
  /**
   * The keys the backed-up server took from its environment (names only): not in the backup, so
   * the restore says they must be given again. Absent from backups made before it was recorded.
   */
  fromEnvironment?: string[];
}

export interface BackupSources {
  database: Database | null;
  /** The engine when the database is not opened for the backup (PostgreSQL, left to pg_dump). */
  engine?: "postgres";
  dataDir: string;
  mediaFolder: string;
  now?: () => number;
}

/** Uploaded files: the media folder's plain files, without partial uploads (hidden names). */
function mediaEntries(folder: string): TarEntry[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.startsWith("."))
    .map((entry) => ({
      name: `media/${entry.name}`,
      data: readFileSync(join(folder, entry.name)),
      mode: 0o600,
    }));
}

/** Makes the backup (gzipped) and records in the data folder that its keys are backed up. */
export async function makeBackup(
  sources: BackupSources,
): Promise<{ file: Buffer; manifest: BackupManifest }> {
  const at = new Date((sources.now ?? Date.now)());
  const database =
    sources.database && isEmbedded(sources.database) ? await sources.database.snapshot() : null;
  const keys = keyFilesIn(sources.dataDir);
  const media = mediaEntries(sources.mediaFolder);
  const manifest: BackupManifest = {
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    createdAt: at.toISOString(),
    engine: sources.database?.engine ?? sources.engine ?? "none",
    database: database !== null,
    keys: keys.map((key) => key.name),
    media: media.length,
    fromEnvironment: keysGivenBy(process.env),
  };
  const entries: TarEntry[] = [
    { name: MANIFEST, data: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`), mode: 0o600 },
    ...(database ? [{ name: DATABASE_ENTRY, data: database, mode: 0o600 }] : []),
    ...keys.map((key) => ({ name: `keys/${key.name}`, data: key.data, mode: 0o600 })),
    ...media,
  ];
  // Level 6 (gzip's default): the 40 MB database folder of a new server becomes about 5 MB. On
  // libuv's thread pool, so the server keeps answering while it compresses.
  const file = await promisify(gzip)(writeTar(entries));
  recordBackup(sources.dataDir, at, keys);
  return { file, manifest };
}
