import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A development secret kept in the data folder, made once. */
export function keptSecret(
  dataDir: string,
  name: string,
  make: () => string,
): { value: string; created: boolean } {
  const path = join(dataDir, name);
  if (existsSync(path)) return { value: readFileSync(path, "utf8").trim(), created: false };
  // The data folder holds the secrets and the database: its owner's alone when we make it.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const value = make();
  writeFileSync(path, `${value}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return { value, created: true };
}
