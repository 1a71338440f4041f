// `possekit rekey` after a key rotation seals the Micropub token of a feed added on the Feeds page
// again too (its write-back, decision 0054): sealed under the old key, afterwards under the new
// key, which alone opens it, and never in what the command printed.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { keyIdOf, SecretBox } from "../../src/server/accounts/secret-box.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { openDatabase } from "../../src/server/database/open.ts";
import { feedOptionsSchema } from "../../src/sources/feeds/feed-options.ts";
import { feedSourceMigrations } from "../../src/sources/feeds/migrations.ts";
import { PageFeedStore } from "../../src/sources/feeds/page-feed-store.ts";
import { type ConfigFolder, configFolder } from "../server/start-host.ts";
import { runCli } from "./run-cli.ts";

describe("possekit rekey and a page feed's Micropub token", () => {
  let folder: ConfigFolder;
  let location: string;
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const token = `micropub-${randomBytes(12).toString("hex")}`;
  const options = feedOptionsSchema.parse({
    url: "https://blog.example/feed.xml",
    targets: ["https://mastodon.example/@me"],
    micropub: { endpoint: "https://blog.example/micropub" },
  });

  before(async () => {
    folder = configFolder((dir) => ({
      application: { port: 0, database: join(dir, "db") },
      plugins: ["@possekit/endpoint-syndicate"],
    }));
    location = join(folder.dir, "db");
    const database = await openDatabase(location);
    try {
      await migrate(database, feedSourceMigrations);
      const store = new PageFeedStore(database, () => new SecretBox(oldKey));
      assert.ok(await store.add(options, Date.now(), { replace: token }));
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
    assert.equal(stdout, `Sealed 1 secret(s) again under key ${keyIdOf(newKey)}.\n`);
    assert.ok(!`${stdout}${stderr}`.includes(token));

    const database = await openDatabase(location);
    try {
      const { rows } = await database.query<{ micropub_token: string }>(
        "SELECT micropub_token FROM page_feeds",
      );
      assert.deepEqual(
        rows.map((row) => SecretBox.keyIdOf(row.micropub_token)),
        [keyIdOf(newKey)],
      );
      const [opened] = await new PageFeedStore(database, () => new SecretBox(newKey)).running();
      assert.equal(opened?.micropubToken, token);
      const [notWithTheOld] = await new PageFeedStore(database, () => new SecretBox(oldKey)).running();
      assert.equal(notWithTheOld?.micropubToken, null, "the old key alone no longer opens it");
    } finally {
      await database.close();
    }
  });
});
