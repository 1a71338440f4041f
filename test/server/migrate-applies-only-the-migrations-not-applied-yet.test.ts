// A start applies what a new version brings and nothing already there: the list of applied
// migrations is read once, and only the missing ones run (each under the lock, checked again).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { engines } from "../helpers/databases.ts";

const first = { id: "upgrade-test/001-notes", sql: "CREATE TABLE notes (id serial PRIMARY KEY, body text)" };
const second = { id: "upgrade-test/002-note-tags", sql: "ALTER TABLE notes ADD COLUMN tags text[]" };

for (const engine of engines) {
  describe(`migrate on ${engine.name}`, () => {
    let database: Database;
    before(async () => {
      database = await engine.open();
    });
    after(async () => {
      await database.close();
    });

    it("applies every migration of a new database, in order", async () => {
      assert.deepEqual(await migrate(database, [first]), [first.id]);
    });

    it("applies only the migration a newer version added", async () => {
      assert.deepEqual(await migrate(database, [first, second]), [second.id]);
      await database.query("INSERT INTO notes (body, tags) VALUES ($1, $2)", ["hello", ["a"]]);
      const { rows } = await database.query<{ tags: string[] }>("SELECT tags FROM notes");
      assert.deepEqual(rows, [{ tags: ["a"] }]);
    });

    it("applies nothing when every migration is there", async () => {
      assert.deepEqual(await migrate(database, [first, second]), []);
      const { rows } = await database.query<{ id: string }>(
        "SELECT id FROM schema_migrations WHERE id LIKE 'upgrade-test/%' ORDER BY id",
      );
      assert.deepEqual(
        rows.map((row) => row.id),
        [first.id, second.id],
      );
    });
  });
}
