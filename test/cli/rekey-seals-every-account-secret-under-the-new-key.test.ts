// `possekit rekey` as a user runs it after rotating ACCOUNT_SECRETS_KEY (the old key in
// ACCOUNT_SECRETS_OLD_KEYS): every stored secret is sealed again under the new key, none is left
// under the old key id, and the new key alone then opens them all.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { AccountStore } from "../../src/server/accounts/account-store.ts";
import { accountMigrations } from "../../src/server/accounts/migrations.ts";
import { keyIdOf, SecretBox } from "../../src/server/accounts/secret-box.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { type RekeyFolder, rekeyFolder } from "./rekey-folder.ts";

const TOKEN = `token-${randomBytes(8).toString("hex")}`;

describe("possekit rekey", () => {
  let world: RekeyFolder;
  let id = "";
  before(async () => {
    world = await rekeyFolder(async (database, oldBox) => {
      await migrate(database, accountMigrations);
      const store = new AccountStore(database, oldBox);
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
    }, []);
  });
  after(() => world?.remove());

  it("seals every secret again under the new key, leaving none under the old key id", async () => {
    const { code, stdout, stderr } = await world.rekey();
    assert.equal(code, 0, stderr);
    assert.equal(stdout, `Sealed 2 secret(s) again under key ${keyIdOf(world.newKey)}.\n`);
    assert.ok(!`${stdout}${stderr}`.includes(TOKEN));

    await world.read(async (database) => {
      const { rows } = await database.query<{ secrets: Record<string, { sealed: string }> }>(
        "SELECT secrets FROM connected_accounts",
      );
      const ids = rows.flatMap((row) =>
        Object.values(row.secrets).map((value) => SecretBox.keyIdOf(value.sealed)),
      );
      assert.deepEqual(ids, [keyIdOf(world.newKey), keyIdOf(world.newKey)]);
      const alone = new AccountStore(database, new SecretBox(world.newKey));
      assert.deepEqual(await alone.secrets(id), { accessToken: TOKEN, clientSecret: "client-secret" });
    });
  });
});
