// A post's syndication in a batch costs two statements and two commits (decision 0068): the claim of
// all its targets, committed before any request, and one statement that records every outcome and
// writes the links back. Counted through the wrapper the bench counts with (bench/lib/query-timer.ts),
// as the difference between two batches, so that what a batch costs once (its lease, its log, a page
// of posts) is left out. An edit of the post made while it is sent, or holding the post's row when
// the write-back comes, is kept beside the links.
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

    it("each post of a batch: its claim and one statement for its outcomes and links, each a commit", async () => {
      // The first success of a target this process meets writes its health on its own, once.
      await batch(1, 1);
      const two = await batch(2, 2);
      assert.equal(kind(WRITE_BACK), 2, JSON.stringify(timer.report()));
      const five = await batch(5, 3);
      assert.equal(kind(WRITE_BACK), 5, JSON.stringify(timer.report()));
      assert.equal(kind("ledger.claim (INSERT … ON CONFLICT + attempt row)"), 5);
      assert.equal(five.statements - two.statements, 2 * 3, JSON.stringify(timer.report()));
      assert.equal(five.commits - two.commits, 2 * 3, JSON.stringify(timer.report()));
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
        const edited = fixture.database.transaction(async (tx) => {
          await tx.query(
            `UPDATE posts SET properties = properties || '{"content": "Edited meanwhile"}'::jsonb WHERE id = $1::bigint`,
            [post.id],
          );
          await editing.promise;
        });
        gate.resolve();
        // The write-back's statement waits for the edit's lock on the row.
        for (;;) {
          const { rows } = await fixture.database.query<{ waiting: number }>(
            `SELECT count(*)::int AS waiting FROM pg_stat_activity
              WHERE wait_event_type = 'Lock' AND query LIKE 'WITH outcome AS%'`,
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
