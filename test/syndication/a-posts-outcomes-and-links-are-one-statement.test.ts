// A post's syndication costs its claim of all its targets, committed before any request, and one
// statement that records every outcome and writes the links back (decision 0068): two statements and
// two commits for a single-post request. In a batch the next post's claim rides the previous post's
// write-back (decision 0075): one statement and one commit a post, and one more for the batch.
// Counted through the wrapper the bench counts with (bench/lib/query-timer.ts), as the difference
// between two batches, so that what a batch costs once (its lease, its log, a page of posts) is left
// out. An edit of the post made while it is sent, or holding the post's row when the write-back
// comes, is kept beside the links.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { QueryTimer } from "../../bench/lib/query-timer.ts";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import { createPostService } from "../../src/server/posts/post-service.ts";
import { Syndication } from "../../src/syndication/syndication.ts";
import { engines } from "../helpers/databases.ts";
import {
  collect,
  deferred,
  gated,
  ledgerRow,
  openSyndication,
  publication,
  type SyndicationFixture,
  silent,
  TestTarget,
} from "./syndication-fixture.ts";

const copies = "https://copies.example/@me";
const refuses = "https://refuses.example/@me";
const slow = "https://slow.example/@me";
const WRITE_BACK = "posts.update with the outcomes (one statement)";
const CLAIM = "ledger.claim (INSERT … ON CONFLICT + attempt row)";
const WRITE_BACK_RIDING = "posts.update with the outcomes and the next post's claim";
const RECORD_RIDING = "ledger.recordOutcomes with the next post's claim";

for (const engine of engines) {
  describe(`a post's outcomes and links are one statement (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    let counted: Syndication;
    const timer = new QueryTimer();
    const kind = (name: string) => timer.report().find((row) => row.kind === name)?.count ?? 0;
    before(async () => {
      fixture = await openSyndication(engine, [
        new TestTarget(copies),
        // Not the target as a whole (a 422): its failure is the post's alone, and backs off.
        new TestTarget(refuses, {
          behaviour: () => {
            throw new SyndicationError("Refuses: 422 The text is too long", {
              status: 422,
              permanent: false,
            });
          },
        }),
        new TestTarget(slow),
      ]);
      const database = timer.wrap(fixture.database);
      counted = new Syndication({
        database,
        // The real post service over the same counted database: its write-back is counted too.
        posts: createPostService(database, publication),
        syndicators: () => fixture.targets,
        publication,
        logger: silent,
        options: { targetTimeoutMs: 30_000, clock: fixture.clock.now },
      });
    });
    after(async () => {
      await counted.runs.shutdown();
      await fixture.close();
    });

    const row = async (postId: string, uid: string) =>
      (
        await fixture.database.query<{
          state: string;
          url: string | null;
          written_back: boolean;
          last_error: string | null;
          last_status: number | null;
          next_attempt_at: Date | null;
        }>(
          `SELECT state, url, written_back, last_error, last_status, next_attempt_at FROM syndication_targets
            WHERE post_id = $1::bigint AND target_uid = $2`,
          [postId, uid],
        )
      ).rows[0];

    /** A batch over `count` new posts, each naming a target that copies it and one that refuses it. */
    const batch = async (count: number, day: number) => {
      const posts = [];
      for (let n = 0; n < count; n += 1)
        posts.push(await fixture.createPost(`2024-02-0${day}T00:0${n}:00Z`, [copies, refuses]));
      timer.reset();
      const { summary } = await collect(await counted.runs.startBatch("batch"));
      return { posts, summary, statements: timer.statements(), commits: timer.commits() };
    };

    it("a single-post request: its claim and one statement for its outcomes and links, each a commit", async () => {
      const post = await fixture.createPost("2024-01-15T00:00:00Z", [copies]);
      timer.reset();
      const result = await counted.runs.syndicatePost(post.url, "manual");
      assert.equal(result.targets[0]?.status, "syndicated", JSON.stringify(result));
      assert.equal(kind(CLAIM), 1, JSON.stringify(timer.report()));
      assert.equal(kind(WRITE_BACK), 1, JSON.stringify(timer.report()));
      assert.equal((await row(post.id, copies))?.written_back, true);
    });

    it("each extra post of a batch: one statement and one commit, its claim riding the last write-back", async () => {
      // The first success of a target this process meets writes its health on its own, once.
      await batch(1, 1);
      const two = await batch(2, 2);
      assert.equal(kind(WRITE_BACK) + kind(WRITE_BACK_RIDING), 2, JSON.stringify(timer.report()));
      const five = await batch(5, 3);
      // Each post's outcomes and links in one statement; the last post's alone (no post after it).
      assert.equal(kind(WRITE_BACK), 1, JSON.stringify(timer.report()));
      assert.equal(kind(WRITE_BACK_RIDING), 4, JSON.stringify(timer.report()));
      // Every claim rode a write-back: the first new post's that of the last post before it (one
      // waiting out a backoff, nothing to write back), the others that of the post before them.
      assert.equal(kind(CLAIM), 0, JSON.stringify(timer.report()));
      assert.equal(kind(RECORD_RIDING), 1, JSON.stringify(timer.report()));
      assert.ok(five.statements - two.statements <= 3 * 3, JSON.stringify(timer.report()));
      assert.equal(five.statements - two.statements, 1 * 3, JSON.stringify(timer.report()));
      assert.equal(five.commits - two.commits, 1 * 3, JSON.stringify(timer.report()));
      assert.equal(five.summary.partial, 5, "each post copied to one target and refused by the other");
      for (const post of five.posts) {
        const copied = await row(post.id, copies);
        assert.equal(copied?.state, "syndicated");
        assert.equal(copied?.written_back, true, "the trigger saw the outcome its statement recorded");
        const refused = await row(post.id, refuses);
        assert.equal(refused?.state, "failed");
        assert.equal(refused?.last_error, "Refuses: 422 The text is too long");
        assert.equal(refused?.last_status, 422);
        assert.ok(refused?.next_attempt_at, "it backs off");
        const { rows } = await fixture.database.query<{
          outcome: string;
          url: string | null;
          error: string | null;
        }>(
          `SELECT outcome, url, error FROM syndication_attempts WHERE post_id = $1::bigint ORDER BY target_uid`,
          [post.id],
        );
        assert.deepEqual(
          rows.map((row) => [row.outcome, row.url === copied?.url, row.error]),
          [
            ["syndicated", true, null],
            ["failed", false, "Refuses: 422 The text is too long"],
          ],
        );
        const stored = await fixture.posts.findById(post.id);
        assert.deepEqual(stored?.properties.syndication, [copied?.url]);
        assert.deepEqual(
          stored?.properties["mp-syndicate-to"],
          [refuses],
          "the refused target is still asked for",
        );
      }
    });

    it("an edit of the post made while it is sent is kept beside its link", async () => {
      const [, , slowTarget] = fixture.targets;
      assert.ok(slowTarget);
      const gate = deferred();
      slowTarget.behaviour = gated(gate.promise, slow);
      const post = await fixture.createPost("2024-03-01T00:00:00Z", [slow], { category: ["first"] });
      const sending = fixture.syndication.runs.syndicatePost(post.url, "manual");
      await slowTarget.called.promise;
      await fixture.posts.update(post.url, {
        replace: { content: "Edited while it was sent" },
        add: { category: ["second"], syndication: ["https://elsewhere.example/by-hand"] },
      });
      gate.resolve();
      const result = await sending;
      const copy = result.targets[0]?.url;
      assert.ok(copy, JSON.stringify(result));
      const stored = await fixture.posts.findByUrl(post.url);
      assert.equal(stored?.properties.content, "Edited while it was sent");
      assert.deepEqual(stored?.properties.category, ["first", "second"]);
      assert.deepEqual(stored?.properties.syndication, ["https://elsewhere.example/by-hand", copy]);
      assert.equal(stored?.properties["mp-syndicate-to"], undefined);
      assert.deepEqual(result.syndication, ["https://elsewhere.example/by-hand", copy]);
    });

    if (engine.name === "postgres")
      it("an edit holding the post's row when the write-back comes: the write-back waits, then adds to it", async () => {
        const [, , slowTarget] = fixture.targets;
        assert.ok(slowTarget);
        const gate = deferred();
        slowTarget.behaviour = gated(gate.promise, slow);
        const post = await fixture.createPost("2024-03-02T00:00:00Z", [slow]);
        const sending = fixture.syndication.runs.syndicatePost(post.url, "manual");
        await slowTarget.called.promise;
        const editing = deferred();
        const holding = deferred<number>();
        const edited = fixture.database.transaction(async (tx) => {
          const { rows } = await tx.query<{ pid: number }>(
            `UPDATE posts SET properties = properties || '{"content": "Edited meanwhile"}'::jsonb WHERE id = $1::bigint
             RETURNING pg_backend_pid() AS pid`,
            [post.id],
          );
          holding.resolve(rows[0]?.pid ?? -1);
          await editing.promise;
        });
        // The send answers only once the edit holds the row: released before, the write-back could
        // run first and never wait, and the loop below would wait for it for ever.
        const editor = await holding.promise;
        gate.resolve();
        // The write-back's statement waits for the edit's lock on the row: this edit's, not a lock of
        // another test sharing the server (pg_stat_activity shows every database's sessions).
        for (;;) {
          const { rows } = await fixture.database.query<{ waiting: number }>(
            `SELECT count(*)::int AS waiting FROM pg_stat_activity
              WHERE $1::int = ANY(pg_blocking_pids(pid)) AND query LIKE 'WITH outcome AS%'`,
            [editor],
          );
          if ((rows[0]?.waiting ?? 0) > 0) break;
          await new Promise((resolve) => setImmediate(resolve));
        }
        editing.resolve();
        await edited;
        const result = await sending;
        const copy = result.targets[0]?.url;
        assert.ok(copy, JSON.stringify(result));
        const stored = await fixture.posts.findByUrl(post.url);
        assert.equal(stored?.properties.content, "Edited meanwhile");
        assert.deepEqual(stored?.properties.syndication, [copy]);
        assert.equal((await ledgerRow(fixture.database, post.id, slow))?.state, "syndicated");
      });
  });
}
