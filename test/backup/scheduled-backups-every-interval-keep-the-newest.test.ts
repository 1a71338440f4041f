// Scheduled backups on the server's clock (a test clock here): the first at start when the folder
// has none, then one every `every` to the millisecond, only the newest `keep` kept; a restarted
// server continues from the newest file rather than starting the interval again. A mistake in the
// options is one line naming it.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { builtInPlugins } from "../../src/built-in-plugins.ts";
import { ConfigError } from "../../src/contract/config-error.ts";
import { openBackup } from "../../src/server/backup/restore-backup.ts";
import { loadConfig } from "../../src/server/config/load.ts";
import { unpackDatabase } from "../../src/server/database/pglite-template.ts";
import { Host } from "../../src/server/host.ts";
import { createLogger } from "../../src/server/logger.ts";
import { TestClock } from "../helpers/clock.ts";
import { snapshot } from "../helpers/database-snapshot.ts";
import { until } from "../helpers/eventually.ts";
import { freePort } from "../helpers/server.ts";

const HOUR = 3_600_000;
const folder = mkdtempSync(join(tmpdir(), "possekit-scheduled-"));
const dataDir = join(folder, "data");
const backups = join(folder, "kept");

const files = () =>
  existsSync(backups)
    ? readdirSync(backups)
        .filter((name) => !name.endsWith(".partial"))
        .sort()
    : [];

async function startHost(clock: TestClock): Promise<Host> {
  const port = await freePort();
  const config = loadConfig({
    config: {
      application: { port, url: `http://127.0.0.1:${port}`, dataDir },
      plugins: [],
      backup: { every: "1h", keep: 2, folder: "kept" },
    },
    env: { SECRET: randomBytes(24).toString("base64url"), PASSWORD: "a password for the test" },
    cwd: folder,
  });
  const host = new Host(config, {
    logger: createLogger("error"),
    builtInPlugins,
    backupClock: { now: clock.now, after: clock.after },
  });
  await host.prepare();
  await host.listen();
  return host;
}

describe("scheduled backups", () => {
  after(() => rmSync(folder, { recursive: true, force: true }));

  it("makes one at start, one every hour to the millisecond, and keeps the newest two", async () => {
    unpackDatabase(
      new Uint8Array(await (await snapshot()).arrayBuffer()),
      join(dataDir, "db"),
      "the snapshot",
    );
    const clock = new TestClock();
    const host = await startHost(clock);
    try {
      clock.advance(0);
      await until("the first backup is written", () => files().length === 1);
      assert.equal(files()[0], "possekit-2024-06-01T12-00-00.000Z.tar.gz");
      const first = readFileSync(join(backups, files()[0] as string));
      assert.equal(openBackup(first, "the scheduled backup").manifest.database, true);
      assert.equal(statSync(join(backups, files()[0] as string)).mode & 0o777, 0o600);
      assert.equal(statSync(backups).mode & 0o777, 0o700);

      await until("the next one is planned", () => clock.nextTimerIn() === HOUR);
      clock.advance(HOUR - 1);
      assert.equal(clock.nextTimerIn(), 1, "nothing due a millisecond early");
      assert.equal(files().length, 1);
      clock.advance(1);
      await until("the second backup is written", () => files().length === 2);
      await until("the third is planned", () => clock.nextTimerIn() === HOUR);
      clock.advance(HOUR);
      await until(
        "the oldest is removed once a third is written",
        () =>
          files().join() ===
          ["possekit-2024-06-01T13-00-00.000Z.tar.gz", "possekit-2024-06-01T14-00-00.000Z.tar.gz"].join(),
      );
    } finally {
      await host.stop();
    }

    // Restarted half an hour later: the next backup is due an hour after the newest, not at start.
    clock.advance(HOUR / 2);
    const again = await startHost(clock);
    try {
      await until("the restarted server plans the next", () => clock.nextTimerIn() !== undefined);
      assert.equal(clock.nextTimerIn(), HOUR / 2);
    } finally {
      await again.stop();
    }
  });

  it("says which option is wrong and what to write", () => {
    const problems = (backup: unknown) => {
      try {
        loadConfig({
          config: { backup },
          env: { SECRET: "s".repeat(16), PASSWORD: "p" },
          cwd: folder,
          makeSecrets: false,
        });
        return [];
      } catch (error) {
        assert.ok(error instanceof ConfigError);
        return error.problems;
      }
    };
    assert.deepEqual(problems({ every: "daily" }), [
      'backup.every: must be a duration such as "1d" (daily), "6h" or "30m"',
    ]);
    assert.deepEqual(problems({ every: "5m" }), [
      'backup.every: must be at least "15m": each backup copies the whole database',
    ]);
    assert.deepEqual(problems({ every: "1d", keep: 0 }), ["backup.keep: must be at least 1, e.g. 7"]);
    assert.deepEqual(problems({ every: "1d", keeep: 3 }).length, 1);
  });
});
