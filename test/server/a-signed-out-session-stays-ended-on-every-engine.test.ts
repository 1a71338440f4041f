// Sessions ended by signing out (session-revocations.ts) on each database engine, from a database
// with no migration applied: the table is made by its migration, an ended session is remembered
// until its cookie would have expired, another one is not ended, and a second sign-out of the same
// session changes nothing. The memory half is tested in src/server/auth/session.test.ts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  sessionRevocationMigrations,
  sessionRevocations,
} from "../../src/server/auth/session-revocations.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { engines } from "../helpers/databases.ts";

const DAY = 86_400_000;

describe("a signed-out session stays ended, on a database", () => {
  it("is remembered by the migration id it was shipped with (a database that applied it would apply it again)", () => {
    assert.deepEqual(
      sessionRevocationMigrations.map((migration) => migration.id),
      ["host/003-revoked-sessions"],
    );
  });

  for (const engine of engines) {
    it(`remembers it in its own table until the cookie would have expired (${engine.name})`, async () => {
      const database = await engine.openBlank();
      try {
        await migrate(database, sessionRevocationMigrations);
        const revocations = sessionRevocations(database);
        await revocations.revoke("ended", new Date(Date.now() + DAY));
        await revocations.revoke("ended", new Date(Date.now() + 2 * DAY));
        await revocations.revoke("long-gone", new Date(Date.now() - DAY));
        assert.equal(await revocations.isRevoked("ended"), true);
        assert.equal(await revocations.isRevoked("never-ended"), false);
        const rows = await database.query<{ session_id: string }>(
          "SELECT session_id FROM revoked_sessions ORDER BY session_id",
        );
        assert.deepEqual(rows.rows, [{ session_id: "ended" }, { session_id: "long-gone" }]);
        // The next sign-out sweeps the rows whose cookies have expired.
        await revocations.revoke("later", new Date(Date.now() + DAY));
        assert.equal(await revocations.isRevoked("long-gone"), false);
        assert.equal(await revocations.isRevoked("ended"), true);
      } finally {
        await database.close();
      }
    });
  }
});
