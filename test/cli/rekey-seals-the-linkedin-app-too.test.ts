// `possekit rekey` seals the owner's LinkedIn app (its client id and secret, entered once on the
// Accounts page) again under the new key, as it does the other sealed secrets; the new key alone
// then opens it, and what the command printed holds neither.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { keyIdOf, SecretBox } from "../../src/server/accounts/secret-box.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { openDatabase } from "../../src/server/database/open.ts";
import {
  LinkedinApps,
  linkedinOAuthMigrations,
} from "../../src/syndicators/linkedin/oauth/linkedin-oauth-store.ts";
import { type ConfigFolder, configFolder } from "../server/start-host.ts";
import { runCli } from "./run-cli.ts";

describe("possekit rekey and the LinkedIn app", () => {
  let folder: ConfigFolder;
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const app = {
    clientId: `86${randomBytes(6).toString("hex")}`,
    clientSecret: randomBytes(12).toString("hex"),
  };
  let location: string;
  before(async () => {
    folder = configFolder((dir) => ({
      application: { port: 0, database: join(dir, "db") },
      plugins: ["@possekit/endpoint-syndicate"],
    }));
    location = join(folder.dir, "db");
    const database = await openDatabase(location);
    try {
      await migrate(database, linkedinOAuthMigrations);
      await new LinkedinApps(database, new SecretBox(oldKey)).keep(app, new Date());
    } finally {
      await database.close();
    }
  });
  after(() => folder?.remove());

  it("seals it again under the new key", async () => {
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
    assert.ok(
      !`${stdout}${stderr}`.includes(app.clientSecret) && !`${stdout}${stderr}`.includes(app.clientId),
    );
    const database = await openDatabase(location);
    try {
      assert.deepEqual(await new LinkedinApps(database, new SecretBox(newKey)).find(), app);
    } finally {
      await database.close();
    }
  });
});
