// `possekit rekey` after a key rotation seals the feeds' WebSub subscription secrets again too, not
// only the connected accounts': one sealed under the old key, and one an older version stored in
// clear. Afterwards every one is under the new key, the new key alone opens each to the secret the
// hub signs with, and neither the secrets nor the keys appear in what the command printed.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { keyIdOf, SecretBox } from "../../src/server/accounts/secret-box.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { openDatabase } from "../../src/server/database/open.ts";
import { webSubMigrations } from "../../src/sources/feeds/http/websub/migrations.ts";
import { SqlWebSubSubscriptionStore } from "../../src/sources/feeds/http/websub/sql-subscription-store.ts";
import type { WebSubSubscription } from "../../src/sources/feeds/http/websub/subscription-store.ts";
import { type ConfigFolder, configFolder } from "../server/start-host.ts";
import { runCli } from "./run-cli.ts";

const NOW = Date.UTC(2026, 10, 1);
const subscription = (id: string, secret: string): WebSubSubscription => ({
  id,
  feedKey: `feed-${id}`,
  hub: "https://hub.example/",
  topic: `https://blog.example/${id}.xml`,
  secret,
  state: "active",
  requestedAt: NOW,
  leaseSeconds: 3600,
  expiresAt: NOW + 3600_000,
  renewAt: NOW + 3540_000,
  lastError: null,
});

describe("possekit rekey and the WebSub subscription secrets", () => {
  let folder: ConfigFolder;
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const sealed = randomBytes(32).toString("base64url");
  const clear = randomBytes(32).toString("base64url");
  let location: string;
  before(async () => {
    // The endpoint is installed with no feed left: the subscriptions' rows stay, and are its to keep.
    folder = configFolder((dir) => ({
      application: { port: 0, database: join(dir, "db") },
      plugins: ["@possekit/endpoint-syndicate"],
    }));
    location = join(folder.dir, "db");
    const database = await openDatabase(location);
    try {
      await migrate(database, webSubMigrations);
      await new SqlWebSubSubscriptionStore(database, () => new SecretBox(oldKey)).save(
        subscription("a", sealed),
      );
      await new SqlWebSubSubscriptionStore(database).save(subscription("b", clear));
    } finally {
      await database.close();
    }
  });
  after(() => folder?.remove());

  it("seals them again under the new key", async () => {
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
    for (const secret of [sealed, clear]) assert.ok(!`${stdout}${stderr}`.includes(secret));

    const database = await openDatabase(location);
    try {
      const { rows } = await database.query<{ secret: string }>(
        "SELECT secret FROM websub_subscriptions ORDER BY id",
      );
      assert.deepEqual(
        rows.map((row) => SecretBox.keyIdOf(row.secret)),
        [keyIdOf(newKey), keyIdOf(newKey)],
      );
      const alone = new SqlWebSubSubscriptionStore(database, () => new SecretBox(newKey));
      assert.equal((await alone.get("a"))?.secret, sealed);
      assert.equal((await alone.get("b"))?.secret, clear);
    } finally {
      await database.close();
    }
  });
});
