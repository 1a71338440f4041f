// The core backs off in SQL (the database's clock decides when a wait ends), the sources and the
// content store in JavaScript: both come from src/net/backoff.ts and must wait the same.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import { backoffMs, sqlBackoffMs } from "../../src/net/backoff.ts";
import { engines } from "../helpers/databases.ts";

for (const engine of engines) {
  describe(`the SQL backoff on ${engine.name}`, () => {
    let database: Database;
    before(async () => {
      database = await engine.open();
    });
    after(() => database.close());

    it("waits as backoffMs does, for no doubling, a few, and far past the longest wait", async () => {
      const rule = { baseMs: 45_000, maxMs: 86_400_000 };
      const counts = [-1, 0, 1, 2, 5, 11, 40, 41, 10_000];
      const result = await database.query<{ wait: number }>(
        `SELECT ${sqlBackoffMs("n", "$2::float8", "$3::float8")}::float8 AS wait
           FROM unnest($1::int[]) WITH ORDINALITY AS t(n, i) ORDER BY i`,
        [counts, rule.baseMs, rule.maxMs],
      );
      assert.deepEqual(
        result.rows.map((row) => Number(row.wait)),
        counts.map((n) => backoffMs(rule, n)),
      );
    });
  });
}
