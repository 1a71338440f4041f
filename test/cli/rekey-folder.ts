// What every `possekit rekey` test sets up: a server's folder whose embedded database holds secrets
// sealed under an old key, then the rotation a user makes (the new key in ACCOUNT_SECRETS_KEY, the
// old one in ACCOUNT_SECRETS_OLD_KEYS) before running the command.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { Database } from "../../src/contract/database.ts";
import { SecretBox } from "../../src/server/accounts/secret-box.ts";
import { openDatabase } from "../../src/server/database/open.ts";
import { type ConfigFolder, configFolder } from "../server/start-host.ts";
import { type Finished, runCli } from "./run-cli.ts";

export interface RekeyFolder {
  folder: ConfigFolder;
  oldKey: Buffer;
  newKey: Buffer;
  /** `possekit rekey` in the folder, the keys rotated. */
  rekey(): Promise<Finished>;
  /** Opens the folder's database for `read` (the command has ended: one process owns it at a time). */
  read<T>(read: (database: Database) => Promise<T>): Promise<T>;
  remove(): void;
}

/**
 * A folder whose database `seed` fills, under the old key, before any server runs there. `plugins`:
 * the config's plug-ins (the endpoint's stores are rekeyed only where it is installed).
 */
export async function rekeyFolder(
  seed: (database: Database, oldBox: SecretBox) => Promise<void>,
  plugins: string[] = ["@possekit/endpoint-syndicate"],
): Promise<RekeyFolder> {
  const folder = configFolder((dir) => ({ application: { port: 0, database: join(dir, "db") }, plugins }));
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const read = async <T>(use: (database: Database) => Promise<T>): Promise<T> => {
    const database = await openDatabase(join(folder.dir, "db"));
    try {
      return await use(database);
    } finally {
      await database.close();
    }
  };
  await read((database) => seed(database, new SecretBox(oldKey)));
  return {
    folder,
    oldKey,
    newKey,
    read,
    rekey: () =>
      runCli(["rekey"], {
        cwd: folder.dir,
        env: {
          ...folder.env,
          ACCOUNT_SECRETS_KEY: newKey.toString("base64"),
          ACCOUNT_SECRETS_OLD_KEYS: oldKey.toString("hex"),
        },
      }),
    remove: () => folder.remove(),
  };
}
