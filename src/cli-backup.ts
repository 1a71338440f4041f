// `possekit backup <file>` and `possekit restore <file>` (src/server/backup/). The embedded folder
// is opened by one process only: while a server holds it, the backup is asked of that server over
// its local route, with the credential in the folder's lock file; only when none does is the
// folder opened here, under the same lock.
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { KEYS_FROM_ENVIRONMENT } from "./server/backup/kept-files.ts";
import { type BackupManifest, makeBackup } from "./server/backup/make-backup.ts";
import { RestoreError, restoreBackup } from "./server/backup/restore-backup.ts";
import type { HostConfig } from "./server/config/load.ts";
import { DatabaseHeldError, FolderLock, folderHolder } from "./server/database/folder-lock.ts";
import { openDatabase } from "./server/database/open.ts";
import { createLogger, logLevelFromEnv } from "./server/logger.ts";
import { BACKUP_PATH } from "./server/routes/backup.ts";

const isPostgres = (database: string) => /^postgres(ql)?:\/\//.test(database);

/** Writes beside, then renames: a backup cut short never takes the name of a good one. */
function writeBackupFile(path: string, data: Uint8Array): void {
  const partial = `${path}.partial`;
  // It holds the keys: the owner's alone, as the data folder is.
  writeFileSync(partial, data, { mode: 0o600 });
  chmodSync(partial, 0o600);
  renameSync(partial, path);
}

function describe(
  path: string,
  manifest: Pick<BackupManifest, "keys" | "media"> & { database: boolean },
): string {
  return `Backup written to ${path} (${manifest.database ? "the database, " : ""}${manifest.keys.length} key file${manifest.keys.length === 1 ? "" : "s"}: ${manifest.keys.join(", ") || "none"}; ${manifest.media} uploaded file${manifest.media === 1 ? "" : "s"}). It holds your keys: keep it as safe as the server, and somewhere else.\n`;
}

/**
 * Says which secrets the environment gives: they are in no backup. `server` names those of the
 * running server that made the backup, whose environment may not be this command's.
 */
function environmentNote(server: unknown = []): string {
  const named = Array.isArray(server) ? server : [];
  const given = KEYS_FROM_ENVIRONMENT.filter((name) => named.includes(name) || process.env[name]);
  if (given.length === 0) return "";
  return `Not in the backup, as the environment gives them: ${given.join(", ")}. Keep them where you keep this service's configuration${given.includes("ACCOUNT_SECRETS_KEY") ? " (without ACCOUNT_SECRETS_KEY the connected accounts' secrets cannot be opened)" : ""}.\n`;
}

/** Asks the server holding the folder for the backup. */
async function backupThroughServer(url: string, key: string, path: string): Promise<number> {
  let response: Response;
  try {
    response = await fetch(`${url}${BACKUP_PATH}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
    });
  } catch (error) {
    process.stderr.write(
      `The server at ${url} holds the database but does not answer (${error instanceof Error ? error.message : String(error)})\n`,
    );
    return 1;
  }
  if (response.status !== 200) {
    const body = (await response.json().catch(() => ({}))) as { error_description?: string };
    process.stderr.write(
      `The server could not make the backup: ${body.error_description ?? `it answered ${response.status}`}\n`,
    );
    return 1;
  }
  const summary = JSON.parse(response.headers.get("possekit-backup") ?? "{}") as Partial<BackupManifest> & {
    fromEnvironment?: unknown;
  };
  writeBackupFile(path, new Uint8Array(await response.arrayBuffer()));
  process.stdout.write(
    describe(path, { database: true, keys: summary.keys ?? [], media: summary.media ?? 0 }),
  );
  process.stdout.write(environmentNote(summary.fromEnvironment));
  return 0;
}

export async function backupFromCli(config: HostConfig, file: string): Promise<number> {
  const path = resolve(file);
  const { database } = config;
  const embedded = database !== false && database !== "memory:" && !isPostgres(database);
  if (embedded) {
    const holder = folderHolder(database);
    if (holder) {
      if (!holder.url || !holder.key) {
        process.stderr.write(
          `The server (pid ${holder.pid}) holding ${database} is still starting; try again in a moment\n`,
        );
        return 1;
      }
      return backupThroughServer(holder.url, holder.key, path);
    }
  }
  const logger = createLogger(logLevelFromEnv());
  let lock: FolderLock | null = null;
  let opened: Awaited<ReturnType<typeof openDatabase>> | null = null;
  try {
    if (embedded) {
      if (!existsSync(database)) {
        process.stderr.write(
          `There is no database in ${database} to back up (application.database, application.dataDir)\n`,
        );
        return 1;
      }
      lock = FolderLock.take(database, logger);
      opened = await openDatabase(database);
    }
    const { file: data, manifest } = await makeBackup({
      database: opened,
      ...(database !== false && isPostgres(database) ? { engine: "postgres" as const } : {}),
      dataDir: config.application.dataDir,
      mediaFolder: config.media.folder,
    });
    writeBackupFile(path, data);
    process.stdout.write(describe(path, manifest));
    process.stdout.write(environmentNote());
    if (database !== false && isPostgres(database))
      process.stdout.write(
        "The database is on PostgreSQL and is not in this file: back it up with pg_dump -Fc (docs/deploying.md, Backups).\n",
      );
    return 0;
  } catch (error) {
    if (!(error instanceof DatabaseHeldError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  } finally {
    await opened?.close();
    lock?.release();
  }
}

export function restoreFromCli(config: HostConfig, file: string): number {
  const path = resolve(file);
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch (error) {
    process.stderr.write(`${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})\n`);
    return 1;
  }
  try {
    const { manifest, notes } = restoreBackup(data, path, {
      dataDir: config.application.dataDir,
      database: config.database,
      mediaFolder: config.media.folder,
    });
    process.stdout.write(
      `Restored the backup of ${manifest.createdAt} into ${config.application.dataDir} (${manifest.database ? "the database, " : ""}${manifest.keys.join(", ") || "no key files"}; ${manifest.media} uploaded files).\n`,
    );
    for (const note of notes) process.stdout.write(`${note}\n`);
    process.stdout.write(
      "Start the server: what was being sent when the backup was taken is resolved at start, as after a crash.\n",
    );
    return 0;
  } catch (error) {
    if (!(error instanceof RestoreError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  }
}
