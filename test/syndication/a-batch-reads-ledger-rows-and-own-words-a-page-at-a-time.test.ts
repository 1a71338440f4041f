// A batch reads what the ledger and the page hold for its posts (ledger rows, the user's own words)
// a page at a time, with the posts, instead of two reads before each post (decision 0029: the batch's
// per-post cost). Each post still gets its own words, and none of another post's.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import { Syndication } from "../../src/syndication/syndication.ts";
import { engines } from "../helpers/databases.ts";
import {
  collect,
  openSyndication,
  publication,
  type SyndicationFixture,
  silent,
  TestTarget,
} from "./syndication-fixture.ts";

const uid = "https://social.example/@me";
const other = "https://other.example/@me";

/** The same database, noting every statement the core sends through it. */
function noting(database: Database, statements: string[]): Database {
  return {
    engine: database.engine,
    query: (sql, params) => {
      statements.push(sql);
      return database.query(sql, params);
    },
    exec: (sql) => database.exec(sql),
    transaction: (fn) =>
      database.transaction((tx) =>
        fn({
          query: (sql, params) => {
            statements.push(sql);
            return tx.query(sql, params);
          },
          exec: (sql) => tx.exec(sql),
        }),
      ),
    close: () => database.close(),
  };
}

for (const engine of engines) {
  describe(`a batch reads ledger rows and own words a page at a time (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    const target = new TestTarget(uid);
    const second = new TestTarget(other);
    before(async () => {
      fixture = await openSyndication(engine, [target, second]);
    });
    after(() => fixture.close());

    it("sends 6 posts with 2 reads of ledger rows and own words in all, each post with its own words", async () => {
      const plain = await fixture.createPost("2024-01-01T00:00:00Z", [uid]);
      const saved = await fixture.createPost("2024-01-02T00:00:00Z", [uid, other]);
      const given = await fixture.createPost("2024-01-03T00:00:00Z", [uid], {
        "mp-syndicate-text": { [uid]: "Words the client gave" },
      });
      const both = await fixture.createPost("2024-01-04T00:00:00Z", [uid], {
        "mp-syndicate-text": { [uid]: "The client's words, replaced on the page" },
      });
      const failedBefore = await fixture.createPost("2024-01-05T00:00:00Z", [uid]);
      const last = await fixture.createPost("2024-01-06T00:00:00Z", [uid]);
      await fixture.syndication.copies.saveOwnText(saved, uid, "Words saved on the page");
      await fixture.syndication.copies.saveOwnText(saved, other, "Other words for the other target");
      await fixture.syndication.copies.saveOwnText(both, uid, "Words saved on the page win");
      // A row the ledger already holds, waiting for its backoff: read with the page, it is skipped.
      await fixture.database.query(
        `INSERT INTO syndication_targets (post_id, target_uid, state, attempts, idempotency_key, last_error, next_attempt_at)
         VALUES ($1::bigint, $2, 'failed', 1, 'key', 'Service unavailable', now() + interval '1 hour')`,
        [failedBefore.id, uid],
      );

      const statements: string[] = [];
      const syndication = new Syndication({
        database: noting(fixture.database, statements),
        posts: fixture.posts,
        syndicators: () => [target, second],
        publication,
        logger: silent,
        // The fixture's clock, which nothing moves: the page never goes stale, however slow the
        // machine (on the wall clock a loaded machine took over a second and read posts again).
        options: { targetTimeoutMs: 30_000, clock: fixture.clock.now },
      });
      try {
        const { results } = await collect(await syndication.runs.startBatch("manual"));
        assert.deepEqual(
          results.map((result) => [result.url, result.status]),
          [
            [plain.url, "syndicated"],
            [saved.url, "syndicated"],
            [given.url, "syndicated"],
            [both.url, "syndicated"],
            [failedBefore.url, "unchanged"],
            [last.url, "syndicated"],
          ],
        );
        assert.match(results[4]?.targets[0]?.error ?? "", /Service unavailable \(next attempt after/);
      } finally {
        await syndication.runs.shutdown();
      }

      const textOf = (postUrl: string, of = target) => of.callsFor(postUrl).map((call) => call.text);
      assert.deepEqual(textOf(plain.url), [undefined]);
      assert.deepEqual(textOf(saved.url), ["Words saved on the page"]);
      assert.deepEqual(textOf(saved.url, second), ["Other words for the other target"]);
      assert.deepEqual(textOf(given.url), ["Words the client gave"]);
      assert.deepEqual(textOf(both.url), ["Words saved on the page win"]);
      assert.deepEqual(textOf(failedBefore.url), []);
      assert.deepEqual(textOf(last.url), [undefined]);

      const perPost = statements.filter((sql) => /FROM syndication_targets WHERE post_id = \$1/.test(sql));
      // The reads of own words, not a claim comparing the post's with those its page read (decision 0080).
      const texts = statements.filter((sql) => /FROM syndication_texts\s+WHERE post_id = ANY/.test(sql));
      assert.equal(perPost.length, 0, "no post's ledger rows were read on their own");
      // All six fit one page; the pages listed after it (the post still in backoff, then none) hold
      // only posts this run has tried, whose rows are not read again.
      assert.equal(texts.length, 1, `own words were read ${texts.length} times`);
    });
  });
}
