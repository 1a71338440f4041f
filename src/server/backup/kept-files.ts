// The files of the data folder a backup must hold besides the database: without them a restored
// database is useless (SECRET's stand-in signs every session and token; the password; the key the
// account secrets are encrypted with). The one list `possekit backup`, `possekit restore` and
// `possekit doctor`'s "not backed up" check read; a new key file is named here, once.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * Secrets made once and kept in the data folder (src/server/config/kept-secret.ts; the account
 * secrets' key is KEY_FILE of src/server/accounts/secret-box.ts).
 */
export const KEY_FILES = ["secret", "password", "account-secrets-key"] as const;

/**
 * The same secrets when the environment gives them instead: then they are in no backup, and the
 * person must keep them (the account secrets do not open without their key).
 */
export const KEYS_FROM_ENVIRONMENT = [
  "SECRET",
  "PASSWORD",
  "ACCOUNT_SECRETS_KEY",
  "ACCOUNT_SECRETS_OLD_KEYS",
] as const;

/** Which of KEYS_FROM_ENVIRONMENT `env` gives (names only, never a value). */
export function keysGivenBy(env: NodeJS.ProcessEnv): string[] {
  return KEYS_FROM_ENVIRONMENT.filter((name) => env[name]);
}

export interface KeyFile {
  name: string;
  path: string;
  data: Buffer;
}

/** The key files the data folder holds now. */
export function keyFilesIn(dataDir: string): KeyFile[] {
  const found: KeyFile[] = [];
  for (const name of KEY_FILES) {
    const path = join(dataDir, name);
    if (existsSync(path) && statSync(path).isFile()) found.push({ name, path, data: readFileSync(path) });
  }
  return found;
}
