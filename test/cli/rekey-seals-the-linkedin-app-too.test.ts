// `possekit rekey` seals the owner's LinkedIn app (its client id and secret, entered once on the
// Accounts page) again under the new key, as it does the other sealed secrets; the new key alone
// then opens it, and what the command printed holds neither.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { keyIdOf, SecretBox } from "../../src/server/accounts/secret-box.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import {
  LinkedinApps,
  linkedinOAuthMigrations,
} from "../../src/syndicators/linkedin/oauth/linkedin-oauth-store.ts";
import { type RekeyFolder, rekeyFolder } from "./rekey-folder.ts";

describe("possekit rekey and the LinkedIn app", () => {
  let world: RekeyFolder;
  const app = {
    clientId: `86${randomBytes(6).toString("hex")}`,
    clientSecret: randomBytes(12).toString("hex"),
  };
  before(async () => {
    world = await rekeyFolder(async (database, oldBox) => {
      await migrate(database, linkedinOAuthMigrations);
      await new LinkedinApps(database, oldBox).keep(app, new Date());
    });
  });
  after(() => world?.remove());

  it("seals it again under the new key", async () => {
    const { code, stdout, stderr } = await world.rekey();
    assert.equal(code, 0, stderr);
    assert.equal(stdout, `Sealed 2 secret(s) again under key ${keyIdOf(world.newKey)}.\n`);
    assert.ok(
      !`${stdout}${stderr}`.includes(app.clientSecret) && !`${stdout}${stderr}`.includes(app.clientId),
    );
    const found = await world.read((database) =>
      new LinkedinApps(database, new SecretBox(world.newKey)).find(),
    );
    assert.deepEqual(found, app);
  });
});
