// A batch's post whose claim throws (the database refusing it) is reported, each target failed with
// the error, and nothing is sent; it is not taken for a post changed since its page was read
// (decision 0080), which would read it again and, its claim throwing again, report nothing of it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import type { Syndication } from "../../src/syndication/syndication.ts";
import { engines } from "../helpers/databases.ts";
import { collect, openSyndication, type SyndicationFixture, TestTarget } from "./syndication-fixture.ts";

const copies = "https://copies.example/@me";
const REFUSAL = "the database refused the claim";

/** The database, refusing every claim statement of the ledger (bench/lib/query-timer.ts names them so). */
function refusingClaims(database: Database): Database {
  return {
    engine: database.engine,
    async query(sql, params) {
      if (/^\s*WITH claimed AS/.test(sql)) throw new Error(REFUSAL);
      return database.query(sql, params);
    },
    exec: (sql) => database.exec(sql),
    transaction: (work) => database.transaction(work),
    close: () => database.close(),
  };
}

for (const engine of engines) {
  describe(`a batch's claim that throws is reported by its targets (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    let refusing: Syndication;
    before(async () => {
      fixture = await openSyndication(engine, [new TestTarget(copies)]);
      refusing = fixture.instance({}, refusingClaims(fixture.database));
    });
    after(() => fixture.close());

    it("each target of the post is failed with the error, and nothing is sent", async () => {
      const post = await fixture.createPost("2024-07-01T00:00:00Z", [copies]);
      const { results } = await collect(await refusing.runs.startBatch("batch"));
      assert.deepEqual(
        results.map((result) => [
          result.url,
          result.targets.map((target) => [target.uid, target.status, target.error?.includes(REFUSAL)]),
        ]),
        [[post.url, [[copies, "failed", true]]]],
        JSON.stringify(results),
      );
      assert.equal(fixture.targets[0]?.callsFor(post.url).length, 0);
    });
  });
}
