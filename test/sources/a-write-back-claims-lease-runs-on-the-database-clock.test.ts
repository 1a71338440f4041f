// The lease of a post's write-back claim follows the rule of every lease of ours
// (src/contract/database-now.ts): the database's clock decides when it ends, so that instances on
// one PostgreSQL whose own clocks are apart agree; a test's clock, when given, decides instead.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import { DATABASE_DECIDES, databaseNow } from "../../src/contract/database-now.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { LinkClaims } from "../../src/sources/micropub/link-claims.ts";
import { micropubSourceMigrations } from "../../src/sources/micropub/migrations.ts";
import { engines } from "../helpers/databases.ts";

const LEASE_MS = 120_000;

for (const engine of engines) {
  describe(`a write-back claim's lease (${engine.name})`, () => {
    let database: Database;
    before(async () => {
      database = await engine.open();
      await migrate(database, micropubSourceMigrations);
    });
    after(() => database.close());

    const heldFor = async (url: string) => {
      const { rows } = await database.query<{ left: number }>(
        `SELECT (extract(epoch FROM held_until - now()) * 1000)::float8 AS left
           FROM micropub_link_claims WHERE url = $1`,
        [url],
      );
      return Number(rows[0]?.left);
    };
    const heldUntil = async (url: string) => {
      const { rows } = await database.query<{ until: Date | string }>(
        "SELECT held_until AS until FROM micropub_link_claims WHERE url = $1",
        [url],
      );
      return new Date(rows[0]?.until ?? Number.NaN).getTime();
    };

    it("ends one lease after the database's now when no clock is given, and so do renewals", async () => {
      const claims = new LinkClaims(database, "micropub:a", LEASE_MS, DATABASE_DECIDES);
      const claim = await claims.take("https://remote.example/1");
      assert.ok(claim);
      const left = await heldFor("https://remote.example/1");
      assert.ok(left > LEASE_MS - 10_000 && left <= LEASE_MS, `${left} ms left`);
      assert.equal(await claim.renew(), true);
      assert.ok((await heldFor("https://remote.example/1")) > LEASE_MS - 10_000);
    });

    it("ends one lease after a test's clock when one is given, lapsing when that clock passes it", async () => {
      let now = Date.parse("2031-01-01T00:00:00Z");
      const claims = new LinkClaims(
        database,
        "micropub:b",
        LEASE_MS,
        databaseNow(() => now),
      );
      const first = await claims.take("https://remote.example/2");
      assert.ok(first);
      assert.equal(await heldUntil("https://remote.example/2"), now + LEASE_MS);
      now += LEASE_MS - 1;
      assert.equal(await claims.take("https://remote.example/2"), undefined, "held for the whole lease");
      now += 1;
      assert.ok(await claims.take("https://remote.example/2"), "taken over once the lease ended");
    });
  });
}
