// `possekit rekey` after a key rotation seals the plug-ins' own secrets again too, not only the
// connected accounts': the feeds' WebSub subscription secrets (one sealed under the old key, one an
// older version stored in clear) and the Mastodon OAuth application's client id and secret.
// Afterwards every one is under the new key, the new key alone opens each, and no secret appears
// in what the command printed.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { keyIdOf, SecretBox } from "../../src/server/accounts/secret-box.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { webSubMigrations } from "../../src/sources/feeds/http/websub/migrations.ts";
import { SqlWebSubSubscriptionStore } from "../../src/sources/feeds/http/websub/sql-subscription-store.ts";
import type { WebSubSubscription } from "../../src/sources/feeds/http/websub/subscription-store.ts";
import {
  type AppKey,
  MastodonApps,
  mastodonOAuthMigrations,
} from "../../src/syndicators/mastodon/oauth/mastodon-oauth-store.ts";
import { type RekeyFolder, rekeyFolder } from "./rekey-folder.ts";

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
  let world: RekeyFolder;
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
  before(async () => {
    // The endpoint is installed with no feed left: the subscriptions' rows stay, and are its to keep.
    world = await rekeyFolder(async (database, oldBox) => {
      await migrate(database, [...webSubMigrations, ...mastodonOAuthMigrations]);
      await new MastodonApps(database, oldBox).keep(appKey, app);
      await new SqlWebSubSubscriptionStore(database, () => oldBox).save(subscription("a", sealed));
      await new SqlWebSubSubscriptionStore(database).save(subscription("b", clear));
    });
  });
  after(() => world?.remove());

  it("seals them again under the new key", async () => {
    const { code, stdout, stderr } = await world.rekey();
    assert.equal(code, 0, stderr);
    assert.equal(stdout, `Sealed 4 secret(s) again under key ${keyIdOf(world.newKey)}.\n`);
    for (const secret of [sealed, clear, app.clientId, app.clientSecret])
      assert.ok(!`${stdout}${stderr}`.includes(secret));

    await world.read(async (database) => {
      const { rows } = await database.query<{ secret: string }>(
        "SELECT secret FROM websub_subscriptions ORDER BY id",
      );
      assert.deepEqual(
        rows.map((row) => SecretBox.keyIdOf(row.secret)),
        [keyIdOf(world.newKey), keyIdOf(world.newKey)],
      );
      const alone = new SqlWebSubSubscriptionStore(database, () => new SecretBox(world.newKey));
      assert.equal((await alone.get("a"))?.secret, sealed);
      assert.equal((await alone.get("b"))?.secret, clear);
      assert.deepEqual(await new MastodonApps(database, new SecretBox(world.newKey)).find(appKey), app);
    });
  });
});
