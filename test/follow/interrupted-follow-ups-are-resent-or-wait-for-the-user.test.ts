// Decision 0028: a follow-up left `sending` by a process that died is resolved like a send: carried out
// again (with its key) where the target honours idempotency, else marked unknown, never repeated
// without the user, and its history says so.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { CopyChangeOptions, PostProperties, Publication } from "../../src/contract/syndicator.ts";
import { engines } from "../helpers/databases.ts";
import {
  collect,
  openSyndication,
  type SyndicationFixture,
  TestTarget,
} from "../syndication/syndication-fixture.ts";

class DeletingTarget extends TestTarget {
  readonly deletes: string[] = [];
  down = true;
  async delete(
    _properties: PostProperties,
    _publication: Publication,
    options: CopyChangeOptions,
  ): Promise<void> {
    if (this.down) throw Object.assign(new Error("503 Service Unavailable"), { status: 503 });
    this.deletes.push(options.url);
  }
}

for (const engine of engines) {
  describe(`interrupted follow-ups are carried out again or wait for the user (${engine.name})`, () => {
    let fixture: SyndicationFixture<DeletingTarget>;
    const keyed = new DeletingTarget("https://keyed.example/@me", { idempotent: true });
    const plain = new DeletingTarget("https://plain.example/@me");
    before(async () => {
      fixture = await openSyndication(engine, [keyed, plain], { retry: { baseMs: 1, maxMs: 1 } });
    });
    after(async () => {
      await fixture.close();
    });

    it("resends the idempotent target's delete once; the other's waits, unknown", async () => {
      const post = await fixture.createPost("2026-01-01T00:00:00Z", [keyed.info.uid, plain.info.uid]);
      await collect(await fixture.syndication.runs.startBatch("manual"));
      await fixture.posts.delete(post.url);
      await collect(await fixture.syndication.runs.startBatch("manual"));
      // Both deletes were claimed by a process that then died mid-call, an hour ago on the clock.
      await fixture.database.query(
        `UPDATE syndication_operations SET state = 'sending', claimed_by = 'dead', claimed_at = $2::timestamptz
          WHERE post_id = $1::bigint`,
        [post.id, fixture.clock.date().toISOString()],
      );
      fixture.clock.advance(3_600_000);
      for (const uid of [keyed.info.uid, plain.info.uid])
        await fixture.database.query(
          `INSERT INTO syndication_attempts (post_id, target_uid, trigger, outcome, operation)
           VALUES ($1::bigint, $2, 'batch', 'sending', 'delete')`,
          [post.id, uid],
        );

      keyed.down = false;
      plain.down = false;
      assert.equal(await fixture.syndication.runs.recoverAfterCrash(), 2);
      const states = async () =>
        (await fixture.syndication.reads.operationsForPost(post.id)).map((op) => [op.targetUid, op.state]);
      assert.deepEqual(await states(), [
        [keyed.info.uid, "pending"],
        [plain.info.uid, "unknown"],
      ]);
      await collect(await fixture.syndication.runs.startBatch("manual"));
      await collect(await fixture.syndication.runs.startBatch("manual"));
      assert.equal(keyed.deletes.length, 1, "carried out again, once");
      assert.equal(plain.deletes.length, 0, "never repeated without the user");
      assert.deepEqual(await states(), [
        [keyed.info.uid, "done"],
        [plain.info.uid, "unknown"],
      ]);
      const interrupted = (await fixture.syndication.reads.attemptsForPost(post.id)).filter(
        (a) => a.operation === "delete" && a.outcome === "unknown",
      );
      assert.equal(interrupted.length, 2, "the history says both were interrupted");
    });
  });
}
