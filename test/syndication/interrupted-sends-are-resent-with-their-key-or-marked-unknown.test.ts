import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { databaseNow } from "../../src/syndication/database-now.ts";
import { Ledger } from "../../src/syndication/ledger/ledger.ts";
import { idempotencyKey } from "../../src/syndication/runs/idempotency-key.ts";
import { engines } from "../helpers/databases.ts";
import {
  collect,
  ledgerRow,
  openSyndication,
  type SyndicationFixture,
  TestTarget,
} from "./syndication-fixture.ts";

const idempotent = "https://idempotent.example/@me";
const plain = "https://plain.example/@me";

for (const engine of engines) {
  describe(`sends interrupted by a dead process (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    let keeps: TestTarget;
    let forgets: TestTarget;
    before(async () => {
      keeps = new TestTarget(idempotent, { idempotent: true });
      forgets = new TestTarget(plain);
      fixture = await openSyndication(engine, [keeps, forgets], { leaseMs: 60_000 });
    });
    after(() => fixture.close());

    /**
     * What a process that died mid-send leaves: rows claimed (`sending`), then `ageSeconds` passing
     * on the instances' clock (an hour: long stale; 0: its sender may still be at work).
     */
    async function crashMidSend(postId: string, postUrl: string, uids: string[], ageSeconds = 3600) {
      const ledger = new Ledger(fixture.database, undefined, databaseNow(fixture.clock.now));
      for (const uid of uids) {
        const claim = await ledger.claim({
          postId,
          targetUid: uid,
          idempotencyKey: idempotencyKey(postUrl, uid),
          holder: "dead-process",
          runId: null,
          trigger: "batch",
        });
        assert.ok(claim);
      }
      fixture.clock.advance(ageSeconds * 1000);
    }

    it("at the next run: resent with the same key where honoured, else unknown and never resent", async () => {
      const post = await fixture.createPost("2024-01-01T00:00:00Z", [idempotent, plain]);
      await crashMidSend(post.id, post.url, [idempotent, plain]);

      const { results } = await collect(await fixture.syndication.runs.startBatch("batch"));
      assert.equal(keeps.callsFor(post.url).length, 1);
      assert.equal(keeps.calls[0]?.idempotencyKey, idempotencyKey(post.url, idempotent));
      assert.equal(forgets.callsFor(post.url).length, 0);
      const result = results[0];
      assert.equal(result?.status, "partial");
      assert.deepEqual(
        result?.targets.map((target) => [target.uid, target.status, target.error]),
        [
          [idempotent, "syndicated", undefined],
          [plain, "skipped", "unknown: check the target"],
        ],
      );
      assert.equal((await ledgerRow(fixture.database, post.id, idempotent))?.attempts, 2);
      const unknown = await ledgerRow(fixture.database, post.id, plain);
      assert.equal(unknown?.state, "unknown");
      assert.equal(unknown?.last_error, "unknown: check the target");
      const attempts = await fixture.syndication.reads.attemptsForPost(post.id);
      assert.deepEqual(attempts.map((attempt) => [attempt.targetUid, attempt.outcome]).sort(), [
        [idempotent, "syndicated"],
        [idempotent, "unknown"],
        [plain, "unknown"],
      ]);

      await collect(await fixture.syndication.runs.startBatch("batch"));
      await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(forgets.callsFor(post.url).length, 0, "never sent again automatically");
    });

    it("the user confirms an unknown outcome: recorded, and the post gets the URL", async () => {
      const post = await fixture.createPost("2024-01-02T00:00:00Z", [plain]);
      await crashMidSend(post.id, post.url, [plain]);
      const single = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(single.targets[0]?.error, "unknown: check the target");
      const copy = "https://plain.example/@me/statuses/123";
      const entry = await fixture.syndication.copies.confirm(post.url, plain, copy);
      assert.equal(entry.state, "syndicated");
      assert.equal(entry.url, copy);
      const stored = await fixture.posts.findByUrl(post.url);
      assert.deepEqual(stored?.properties.syndication, [copy]);
      assert.deepEqual(stored?.properties["mp-syndicate-to"] ?? [], []);
      assert.equal(forgets.callsFor(post.url).length, 0);
    });

    it("the user retries an unknown outcome: sent again", async () => {
      const post = await fixture.createPost("2024-01-03T00:00:00Z", [plain]);
      await crashMidSend(post.id, post.url, [plain]);
      await fixture.syndication.runs.syndicatePost(post.url, "manual");
      const retried = await fixture.syndication.runs.retry(post.url);
      assert.equal(retried.status, "syndicated");
      assert.equal(forgets.callsFor(post.url).length, 1);
      assert.equal(forgets.calls.at(-1)?.idempotencyKey, idempotencyKey(post.url, plain));
    });

    it("a recent claim (its sender may be alive) is left alone", async () => {
      const post = await fixture.createPost("2024-01-04T00:00:00Z", [plain]);
      await crashMidSend(post.id, post.url, [plain], 0);
      const result = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(result.targets[0]?.status, "skipped");
      assert.equal(result.targets[0]?.error, "Being sent by another run right now");
      assert.equal((await ledgerRow(fixture.database, post.id, plain))?.state, "sending");
      assert.equal(forgets.callsFor(post.url).length, 0);
    });
  });
}
