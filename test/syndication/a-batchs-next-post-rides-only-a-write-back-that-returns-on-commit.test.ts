// Decision 0075's second guard, as the source states it: a batch's next post is claimed inside the
// current post's write-back only when the source says that write-back returns once committed
// (PostSource.returnsOnCommit). A source that says nothing of it (a source outside the core's, or an
// older one) is taken as "it may wait after its commit": the write-back commits alone, the next post
// is claimed after it returns, and both posts are sent as usual. A slip would hold the next post's
// rows `sending` while the store or origin is awaited, or fail the post on the missing method.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import { engines } from "../helpers/databases.ts";
import { collect, openSyndication, type SyndicationFixture, TestTarget } from "./syndication-fixture.ts";

const copies = "https://copies.example/@me";

async function statesOf(database: Database, postId: string): Promise<string[]> {
  const { rows } = await database.query<{ state: string }>(
    "SELECT state FROM syndication_targets WHERE post_id = $1::bigint ORDER BY target_uid",
    [postId],
  );
  return rows.map((row) => row.state);
}

for (const engine of engines) {
  describe(`a batch's next post rides only a write-back that returns on commit (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    before(async () => {
      fixture = await openSyndication(engine, [new TestTarget(copies)]);
    });
    after(() => fixture.close());

    /** Runs a batch of `current` and `next` with the source changed as `change`; what the next post's rows were just after the current post's write-back committed. */
    async function batchOfTwo(
      minute: number,
      change: Partial<SyndicationFixture["posts"]>,
    ): Promise<{
      seen: string[] | undefined;
      results: { url: string; statuses: string[] }[];
      nextId: string;
    }> {
      const current = await fixture.createPost(`2024-05-01T00:0${minute}:00Z`, [copies]);
      const next = await fixture.createPost(`2024-05-01T00:0${minute + 1}:00Z`, [copies]);
      const saved = {
        updateAlongside: fixture.posts.updateAlongside,
        returnsOnCommit: fixture.posts.returnsOnCommit,
      };
      const real = fixture.posts.updateAlongside;
      assert.ok(real);
      let seen: string[] | undefined;
      Object.assign(fixture.posts, {
        async updateAlongside(url: string, update: never, alongside: never) {
          const written = await real(url, update, alongside);
          // Committed: had the next post's claim ridden this statement, its rows would be `sending`.
          if (url === current.url) seen = await statesOf(fixture.database, next.id);
          return written;
        },
        ...change,
      });
      try {
        const { results } = await collect(await fixture.syndication.runs.startBatch("batch"));
        return {
          seen,
          results: results.map((result) => ({
            url: result.url,
            statuses: result.targets.map((target) => target.status),
          })),
          nextId: next.id,
        };
      } finally {
        Object.assign(fixture.posts, saved);
      }
    }

    it("a source that says nothing of its commit: the write-back commits alone and both posts are sent", async () => {
      const { seen, results, nextId } = await batchOfTwo(0, { returnsOnCommit: undefined });
      assert.deepEqual(seen, [], "the next post is not claimed inside the write-back");
      assert.deepEqual(
        results.map((result) => result.statuses),
        [["syndicated"], ["syndicated"]],
        JSON.stringify(results),
      );
      assert.deepEqual(await statesOf(fixture.database, nextId), ["syndicated"]);
    });

    it("a source whose write-back returns on commit: the next post's claim rides it", async () => {
      const { seen, nextId } = await batchOfTwo(3, { returnsOnCommit: () => true });
      assert.deepEqual(seen, ["sending"], "the next post is claimed in the write-back's statement");
      assert.deepEqual(await statesOf(fixture.database, nextId), ["syndicated"]);
    });

    it("a source whose write-back may wait after its commit: the next post is claimed after it", async () => {
      const { seen, nextId } = await batchOfTwo(6, { returnsOnCommit: () => false });
      assert.deepEqual(seen, []);
      assert.deepEqual(await statesOf(fixture.database, nextId), ["syndicated"]);
    });
  });
}
