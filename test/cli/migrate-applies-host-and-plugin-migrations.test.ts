// `possekit migrate` (decision 0001) applies the host's migrations and those of every installed plug-in,
// once, then exits; it refuses when the server runs without a database.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { openDatabase } from "../../src/server/database/open.ts";
import { engines } from "../helpers/databases.ts";
import { configFolder, pathFrom, TEST_PLUGIN_FILE } from "../server/start-host.ts";
import { runCli } from "./run-cli.ts";

async function appliedMigrations(location: string): Promise<string[]> {
  const database = await openDatabase(location);
  try {
    const { rows } = await database.query<{ id: string }>("SELECT id FROM schema_migrations ORDER BY id");
    return rows.map((row) => row.id);
  } finally {
    await database.close();
  }
}

for (const engine of engines) {
  describe(`possekit migrate on ${engine.name}`, () => {
    // PGlite: a folder under the config's data folder; PostgreSQL: DATABASE_URL to a schema of its own.
    let location: string;
    let env: Record<string, string>;
    let drop = async () => {};
    const folder = configFolder((dir) => ({
      application: { port: 0, database: join(dir, "db") },
      plugins: [pathFrom(dir, TEST_PLUGIN_FILE)],
    }));
    before(async () => {
      if (engine.name === "pglite") {
        location = join(folder.dir, "db");
        env = folder.env;
      } else {
        const target = await engine.location();
        location = target.url;
        drop = target.drop;
        env = { ...folder.env, DATABASE_URL: target.url };
      }
    });
    after(async () => {
      await drop();
      folder.remove();
    });

    it("applies the host's and the plug-in's migrations and exits 0", async () => {
      const { code, stdout, stderr } = await runCli(["migrate"], { cwd: folder.dir, env });
      assert.equal(code, 0, stderr);
      assert.equal(stdout, "Migrations applied.\n");
      const applied = await appliedMigrations(location);
      assert.ok(applied.includes("host/001-posts"), applied.join(", "));
      assert.ok(applied.includes("test-plugin/001-notes"), applied.join(", "));
    });

    it("applies nothing twice when run again", async () => {
      const before = await appliedMigrations(location);
      const { code } = await runCli(["migrate"], { cwd: folder.dir, env });
      assert.equal(code, 0);
      assert.deepEqual(await appliedMigrations(location), before);
    });
  });
}

describe("possekit migrate without a database", () => {
  const folder = configFolder(() => ({ application: { database: false }, plugins: [] }));
  after(() => folder.remove());

  it("exits 1 saying there is nothing to migrate", async () => {
    const { code, stderr } = await runCli(["migrate"], { cwd: folder.dir, env: folder.env });
    assert.equal(code, 1);
    assert.match(stderr, /application\.database is false/);
  });
});
