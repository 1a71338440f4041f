// `possekit rekey` as a user runs it after rotating ACCOUNT_SECRETS_KEY (the old key in
// ACCOUNT_SECRETS_OLD_KEYS): every stored secret is sealed again under the new key, none is left
// under the old key id, and the new key alone then opens them all.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { AccountStore } from "../../src/server/accounts/account-store.ts";
import { accountMigrations } from "../../src/server/accounts/migrations.ts";
import { keyIdOf, SecretBox } from "../../src/server/accounts/secret-box.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { openDatabase } from "../../src/server/database/open.ts";
import { type ConfigFolder, configFolder } from "../server/start-host.ts";
import { runCli } from "./run-cli.ts";

const TOKEN = `token-${randomBytes(8).toString("hex")}`;

describe("possekit rekey", () => {
  let folder: ConfigFolder;
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  let location: string;
  let id = "";
  before(async () => {
    folder = configFolder((dir) => ({ application: { port: 0, database: join(dir, "db") }, plugins: [] }));
    location = join(folder.dir, "db");
    const database = await openDatabase(location);
    try {
      await migrate(database, accountMigrations);
      const store = new AccountStore(database, new SecretBox(oldKey));
      id = (
        await store.save(
          {
            type: "mastodon",
            options: { url: "https://social.example", user: "alice" },
            display: { name: "@alice@social.example" },
            secrets: { accessToken: TOKEN, clientSecret: "client-secret" },
          },
          "https://social.example/@alice",
        )
      ).id;
    } finally {
      await database.close();
    }
  });
  after(() => folder?.remove());

  it("seals every secret again under the new key, leaving none under the old key id", async () => {
    const { code, stdout, stderr } = await runCli(["rekey"], {
      cwd: folder.dir,
      env: {
        ...folder.env,
        ACCOUNT_SECRETS_KEY: newKey.toString("base64"),
        ACCOUNT_SECRETS_OLD_KEYS: oldKey.toString("hex"),
      },
    });
    assert.equal(code, 0, stderr);
    assert.equal(stdout, `Sealed 2 secret(s) again under key ${keyIdOf(newKey)}.\n`);
    assert.ok(!`${stdout}${stderr}`.includes(TOKEN));

    const database = await openDatabase(location);
    try {
      const { rows } = await database.query<{ secrets: Record<string, { sealed: string }> }>(
        "SELECT secrets FROM connected_accounts",
      );
      const ids = rows.flatMap((row) =>
        Object.values(row.secrets).map((value) => SecretBox.keyIdOf(value.sealed)),
      );
      assert.deepEqual(ids, [keyIdOf(newKey), keyIdOf(newKey)]);
      const alone = new AccountStore(database, new SecretBox(newKey));
      assert.deepEqual(await alone.secrets(id), { accessToken: TOKEN, clientSecret: "client-secret" });
    } finally {
      await database.close();
    }
  });
});
