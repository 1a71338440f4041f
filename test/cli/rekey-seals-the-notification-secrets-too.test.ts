// `possekit rekey` after a key rotation seals the secrets saved on the Notifications page again
// too: the SMTP password and the webhook's signing key, sealed under the old key, are afterwards
// under the new key, which alone opens each, and neither appears in what the command printed.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { notificationMigrations } from "../../src/notifications/migrations.ts";
import { NotificationSettingsStore } from "../../src/notifications/settings-store.ts";
import { keyIdOf, SecretBox } from "../../src/server/accounts/secret-box.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { type RekeyFolder, rekeyFolder } from "./rekey-folder.ts";

describe("possekit rekey and the notification secrets", () => {
  let world: RekeyFolder;
  const password = `smtp-${randomBytes(12).toString("hex")}`;
  const hookKey = `hook-${randomBytes(12).toString("hex")}`;

  before(async () => {
    world = await rekeyFolder(async (database, oldBox) => {
      await migrate(database, notificationMigrations);
      const store = new NotificationSettingsStore(database, () => oldBox);
      await store.save(
        "email",
        {
          smtpUrl: "smtp://me@mail.example.org:587",
          from: "p@example.org",
          to: ["me@example.org"],
          events: ["refused"],
        },
        { replace: password },
      );
      await store.save(
        "webhook",
        { url: "https://hooks.example.org/p", events: ["refused"] },
        { replace: hookKey },
      );
    });
  });
  after(() => world?.remove());

  it("seals them again under the new key", async () => {
    const { code, stdout, stderr } = await world.rekey();
    assert.equal(code, 0, stderr);
    assert.equal(stdout, `Sealed 2 secret(s) again under key ${keyIdOf(world.newKey)}.\n`);
    assert.ok(![password, hookKey].some((secret) => `${stdout}${stderr}`.includes(secret)));

    await world.read(async (database) => {
      const { rows } = await database.query<{ secret: string }>(
        "SELECT secret FROM notification_channels ORDER BY channel",
      );
      assert.deepEqual(
        rows.map((row) => SecretBox.keyIdOf(row.secret)),
        [keyIdOf(world.newKey), keyIdOf(world.newKey)],
      );
      const settings = await new NotificationSettingsStore(
        database,
        () => new SecretBox(world.newKey),
      ).settings();
      assert.equal(settings.email?.smtpUrl, `smtp://me:${password}@mail.example.org:587`);
      assert.equal(settings.webhook?.secret, hookKey);
    });
  });
});
