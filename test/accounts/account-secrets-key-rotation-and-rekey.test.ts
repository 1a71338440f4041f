// The key that seals connected accounts' secrets: generated once into the data folder (mode 0600)
// when the environment names none, and kept; replaced by ACCOUNT_SECRETS_KEY, the old key (in
// ACCOUNT_SECRETS_OLD_KEYS, or the generated file) still opens what it sealed; rekey seals every
// value again under the new key, after which the old key is no longer needed. A stored value with a
// flipped byte is refused, never opened to something else.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import { AccountStore } from "../../src/server/accounts/account-store.ts";
import { accountMigrations } from "../../src/server/accounts/migrations.ts";
import {
  KEY_FILE,
  keyIdOf,
  loadAccountKeys,
  SecretBox,
  SecretBoxError,
} from "../../src/server/accounts/secret-box.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { engines } from "../helpers/databases.ts";

const TOKEN = `token-${randomBytes(8).toString("hex")}`;
const PASSWORD = "abcd-efgh-ijkl-mnop";

for (const engine of engines) {
  describe(`the account secrets key (${engine.name})`, () => {
    let dataDir: string;
    let database: Database;
    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), "possekit-keys-"));
      database = await engine.open();
      await migrate(database, accountMigrations);
    });
    after(async () => {
      await database?.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    const storeWith = (env: NodeJS.ProcessEnv) => {
      const { current, old } = loadAccountKeys(env, dataDir);
      return new AccountStore(database, new SecretBox(current, old));
    };
    const keyIds = async () => {
      const { rows } = await database.query<{ secrets: Record<string, { sealed: string }> }>(
        "SELECT secrets FROM connected_accounts",
      );
      return rows.flatMap((row) =>
        Object.values(row.secrets).map((value) => SecretBox.keyIdOf(value.sealed)),
      );
    };

    it("is generated once into the data folder, readable by its owner alone, and kept", () => {
      const first = loadAccountKeys({}, dataDir);
      const path = join(dataDir, KEY_FILE);
      assert.equal(statSync(path).mode & 0o777, 0o600);
      const again = loadAccountKeys({}, dataDir);
      assert.deepEqual(again.current, first.current);
      assert.equal(readFileSync(path, "utf8").trim().length > 0, true);
    });

    it("seals with the generated key, and a flipped byte of a stored value is refused", async () => {
      const store = storeWith({});
      const account = await store.save(
        {
          type: "mastodon",
          options: { url: "https://social.example", user: "alice" },
          display: { name: "@alice@social.example" },
          secrets: { accessToken: TOKEN, clientSecret: PASSWORD },
        },
        "https://social.example/@alice",
      );
      assert.deepEqual(await store.secrets(account.id), { accessToken: TOKEN, clientSecret: PASSWORD });
      const { rows } = await database.query<{ secrets: Record<string, { sealed: string; set_at: string }> }>(
        "SELECT secrets FROM connected_accounts WHERE id = $1",
        [account.id],
      );
      const stored = rows[0]?.secrets ?? {};
      const sealed = stored.accessToken?.sealed ?? "";
      const [version, id, body] = sealed.split(".") as [string, string, string];
      const bytes = Buffer.from(body, "base64url");
      bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0x80;
      const flipped = {
        ...stored,
        accessToken: { ...stored.accessToken, sealed: `${version}.${id}.${bytes.toString("base64url")}` },
      };
      await database.query("UPDATE connected_accounts SET secrets = $2::jsonb WHERE id = $1", [
        account.id,
        JSON.stringify(flipped),
      ]);
      await assert.rejects(store.secrets(account.id), SecretBoxError);
      await database.query("UPDATE connected_accounts SET secrets = $2::jsonb WHERE id = $1", [
        account.id,
        JSON.stringify(stored),
      ]);
      assert.deepEqual(await store.secrets(account.id), { accessToken: TOKEN, clientSecret: PASSWORD });
    });

    it("still opens the old key's values after a rotation, and rekey leaves none under the old key id", async () => {
      const generated = loadAccountKeys({}, dataDir).current;
      const oldId = keyIdOf(generated);
      const newKey = randomBytes(32);
      const rotated = storeWith({ ACCOUNT_SECRETS_KEY: newKey.toString("base64") });
      const [account] = await rotated.list();
      assert.ok(account);
      assert.deepEqual(await rotated.secrets(account.id), { accessToken: TOKEN, clientSecret: PASSWORD });
      assert.deepEqual(await keyIds(), [oldId, oldId]);

      assert.equal(await rotated.rekey(), 2);
      assert.deepEqual(await keyIds(), [keyIdOf(newKey), keyIdOf(newKey)]);
      assert.equal(await rotated.rekey(), 0, "nothing is left to seal again");

      // The generated key is gone, and the new key alone opens every value.
      rmSync(join(dataDir, KEY_FILE));
      const alone = storeWith({ ACCOUNT_SECRETS_KEY: newKey.toString("hex") });
      assert.deepEqual(await alone.secrets(account.id), { accessToken: TOKEN, clientSecret: PASSWORD });
    });

    it("names the missing key when a value's key is given nowhere", async () => {
      const [account] = await storeWith({ ACCOUNT_SECRETS_KEY: randomBytes(32).toString("base64") }).list();
      assert.ok(account);
      await assert.rejects(
        storeWith({ ACCOUNT_SECRETS_KEY: randomBytes(32).toString("base64") }).secrets(account.id),
        (error: Error) => error instanceof SecretBoxError && /ACCOUNT_SECRETS_OLD_KEYS/.test(error.message),
      );
    });
  });
}
