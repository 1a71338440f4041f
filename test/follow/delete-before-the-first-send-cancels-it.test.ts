// Decision 0028: a post deleted before its copies went out is never sent, whatever its sends were
// waiting for (nothing yet, a retry after a failure), even by a user's "retry everything", and even
// by a run that listed the post just before the delete: the claim itself refuses a deleted post.
// A send already in flight when the delete arrives lands, and its copy is then deleted.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { CopyChangeOptions, PostProperties, Publication } from "../../src/contract/syndicator.ts";
import { databaseNow } from "../../src/syndication/database-now.ts";
import { Ledger } from "../../src/syndication/ledger/ledger.ts";
import { syndicatePost } from "../../src/syndication/runs/syndicate-post.ts";
import { engines } from "../helpers/databases.ts";
import {
  collect,
  deferred,
  gated,
  openSyndication,
  publication,
  type SyndicationFixture,
  silent,
  TestTarget,
} from "../syndication/syndication-fixture.ts";

/** A target whose copies can be deleted; it records each delete. */
class DeletingTarget extends TestTarget {
  readonly deletes: string[] = [];
  async delete(
    _properties: PostProperties,
    _publication: Publication,
    options: CopyChangeOptions,
  ): Promise<void> {
    this.deletes.push(options.url);
  }
}

const refuse503 = () => {
  throw Object.assign(new Error("503 Service Unavailable"), { status: 503 });
};

for (const engine of engines) {
  describe(`a delete before the first send cancels it (${engine.name})`, () => {
    let fixture: SyndicationFixture<DeletingTarget>;
    const a = new DeletingTarget("https://a.example/@me", { idempotent: true });
    const b = new DeletingTarget("https://b.example/@me");
    before(async () => {
      fixture = await openSyndication(engine, [a, b], { retry: { baseMs: 60_000, maxMs: 60_000 } });
    });
    after(async () => {
      await fixture.close();
    });

    it("sends nothing to any target: not pending, not failed, not after listing the post", async () => {
      const uids = [a.info.uid, b.info.uid];
      // One post whose sends failed and wait for a retry, one never tried, one listed by a run.
      b.behaviour = refuse503;
      const failed = await fixture.createPost("2026-01-01T00:00:00Z", [b.info.uid]);
      await fixture.syndication.runs.syndicatePost(failed.url, "manual");
      assert.equal(b.calls.length, 1);
      const untried = await fixture.createPost("2026-01-02T00:00:00Z", uids);
      const listed = await fixture.createPost("2026-01-03T00:00:00Z", uids);
      const stale = (await fixture.posts.nextAwaitingSyndication()).find((post) => post.id === listed.id);
      assert.ok(stale && !stale.deleted);

      for (const post of [failed, untried, listed]) await fixture.posts.delete(post.url);
      b.behaviour = (call, count) => `https://b.example/copies/${count}?of=${call.postUrl}`;

      // The run that listed the post before the delete now sends it.
      const context = {
        ledger: new Ledger(fixture.database, undefined, databaseNow(fixture.clock.now)),
        posts: fixture.posts,
        syndicators: [a, b],
        publication,
        logger: silent,
        holder: "racing-run",
        targetTimeoutMs: 5_000,
        now: fixture.clock.now,
      };
      const raced = await syndicatePost(context, stale, { runId: null, trigger: "batch", force: true });
      assert.ok(raced.targets.every((t) => t.status !== "syndicated"));
      // The user retries everything that needs attention.
      const run = await fixture.syndication.runs.startBatch("manual", { retryFailed: true });
      const { summary } = await collect(run);

      assert.equal(a.calls.length, 0, "nothing sent to a");
      assert.equal(b.calls.length, 1, "only the send that failed before the delete");
      assert.equal(summary.syndicated, 0);
      const operations = await fixture.syndication.reads.operationsForPost(untried.id);
      assert.deepEqual(
        operations.map((op) => [op.targetUid, op.operation, op.state]),
        uids.map((uid) => [uid, "delete", "cancelled"]),
      );
    });

    it("a send in flight when the delete arrives lands, then its copy is deleted once", async () => {
      const gate = deferred();
      a.behaviour = gated(gate.promise, a.info.uid);
      const post = await fixture.createPost("2026-01-04T00:00:00Z", [a.info.uid]);
      const sending = fixture.syndication.runs.syndicatePost(post.url, "manual");
      await a.called.promise;
      await fixture.posts.delete(post.url);
      gate.resolve();
      const sent = await sending;
      const copy = sent.targets[0]?.url;
      assert.equal(sent.targets[0]?.status, "syndicated");
      assert.ok(copy);

      await collect(await fixture.syndication.runs.startBatch("manual"));
      await collect(await fixture.syndication.runs.startBatch("manual"));
      assert.deepEqual(a.deletes, [copy], "the copy that landed is deleted, once");
      const stored = await fixture.posts.findById(post.id);
      assert.deepEqual(stored?.properties.syndication ?? [], [], "its link left the post");
    });
  });
}
