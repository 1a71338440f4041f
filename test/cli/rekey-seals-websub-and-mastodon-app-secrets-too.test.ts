// `possekit rekey` after a key rotation seals the plug-ins' own secrets again too, not only the
// connected accounts': the feeds' WebSub subscription secrets (one sealed under the old key, one an
// older version stored in clear) and the Mastodon OAuth application's client id and secret.
// Afterwards every one is under the new key, the new key alone opens each, and no secret appears
// in what the command printed.
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
import {
  type AppKey,
  MastodonApps,
  mastodonOAuthMigrations,
} from "../../src/syndicators/mastodon/oauth/mastodon-oauth-store.ts";
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

describe("possekit rekey and the plug-ins' own secrets", () => {
  let folder: ConfigFolder;
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const sealed = randomBytes(32).toString("base64url");
  const clear = randomBytes(32).toString("base64url");
  const app = {
    clientId: `id-${randomBytes(8).toString("hex")}`,
    clientSecret: randomBytes(24).toString("hex"),
  };
  const appKey: AppKey = {
    instance: "https://social.example",
    redirectUri: "https://me.example/syndicate/accounts/mastodon/callback",
    scopes: "read:accounts write:statuses write:media",
  };
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
      await migrate(database, [...webSubMigrations, ...mastodonOAuthMigrations]);
      await new MastodonApps(database, new SecretBox(oldKey)).keep(appKey, app);
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
    assert.equal(stdout, `Sealed 4 secret(s) again under key ${keyIdOf(newKey)}.\n`);
    for (const secret of [sealed, clear, app.clientId, app.clientSecret])
      assert.ok(!`${stdout}${stderr}`.includes(secret));

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
      assert.deepEqual(await new MastodonApps(database, new SecretBox(newKey)).find(appKey), app);
    } finally {
      await database.close();
    }
  });
});
