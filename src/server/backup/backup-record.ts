// What the last backup held, kept beside the keys: `possekit doctor` tells a key that no backup
// ever held (lose the machine and the account secrets are gone) from one that is kept elsewhere.
// Only digests: the record itself reveals nothing of the keys.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { KeyFile } from "./kept-files.ts";

export const BACKUP_RECORD = "backups.json";

const recordSchema = z.object({
  last: z.object({ at: z.string(), keys: z.record(z.string(), z.string()) }),
});

export const keyDigest = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

/** Notes that a backup made at `at` holds these keys as they are now. */
export function recordBackup(dataDir: string, at: Date, keys: KeyFile[]): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const record = {
    last: {
      at: at.toISOString(),
      keys: Object.fromEntries(keys.map((key) => [key.name, keyDigest(key.data)])),
    },
  };
  const path = join(dataDir, BACKUP_RECORD);
  writeFileSync(`${path}.new`, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${path}.new`, path);
}

/** The last backup's time and the digests of the keys it held, or null when none was recorded. */
export function lastBackup(dataDir: string): { at: Date; keys: Record<string, string> } | null {
  const path = join(dataDir, BACKUP_RECORD);
  if (!existsSync(path)) return null;
  try {
    const parsed = recordSchema.parse(JSON.parse(readFileSync(path, "utf8")));
    return { at: new Date(parsed.last.at), keys: parsed.last.keys };
  } catch {
    return null;
  }
}
