// A batch reads its posts a page at a time, yet sends each post as it is when its turn comes: a
// change made while an earlier post is sent (the post edited, deleted, kept back, given other words
// or another thread choice) is found by the later post's claim, which compares the post with what
// its page read (decision 0080), and the post is read again. No time passes on any clock here: the
// change is honoured because it was made, not because the page grew old.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import {
  collect,
  deferred,
  gated,
  openSyndication,
  type SyndicationFixture,
  TestTarget,
} from "./syndication-fixture.ts";

const slow = "https://slow.example/@me";
const other = "https://other.example/@me";

for (const engine of engines) {
  describe(`a batch reads each post as it is when its turn comes (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    let slowTarget: TestTarget;
    let otherTarget: TestTarget;
    before(async () => {
      fixture = await openSyndication(engine, [new TestTarget(slow), new TestTarget(other)]);
      const [first, second] = fixture.targets;
      assert.ok(first && second);
      slowTarget = first;
      otherTarget = second;
    });
    after(() => fixture.close());

    /**
     * A batch over an earlier post sent to the slow target and later ones: `change` is made while
     * the earlier post is being sent, after all were listed. `returnsOnCommit: false` makes each post
     * commit alone, so that the later post's claim runs on its own instead of riding the earlier
     * post's write-back (both paths compare the post).
     */
    const changedDuringRun = async (change: () => Promise<unknown>, { alone = false } = {}) => {
      const gate = deferred();
      slowTarget.behaviour = gated(gate.promise, slow);
      const saved = fixture.posts.returnsOnCommit;
      if (alone) fixture.posts.returnsOnCommit = () => false;
      try {
        const run = await fixture.syndication.runs.startBatch("batch");
        const finished = collect(run);
        await slowTarget.called.promise;
        await change();
        gate.resolve();
        return await finished;
      } finally {
        fixture.posts.returnsOnCommit = saved;
        slowTarget.behaviour = (call, count) =>
          `${slow}/copies/${count}?of=${encodeURIComponent(call.postUrl)}`;
      }
    };

    for (const alone of [false, true])
      it(`a target removed from a later post while an earlier post is sent is not sent to (its claim ${alone ? "alone" : "riding the write-back"})`, async () => {
        const day = alone ? "02" : "01";
        await fixture.createPost(`2024-01-${day}T00:00:00Z`, [slow]);
        const later = await fixture.createPost(`2024-01-${day}T00:01:00Z`, [other, slow]);
        const { results } = await changedDuringRun(
          () => fixture.posts.update(later.url, { delete: { "mp-syndicate-to": [other] } }),
          { alone },
        );
        assert.equal(otherTarget.callsFor(later.url).length, 0);
        assert.equal(slowTarget.callsFor(later.url).length, 1);
        assert.deepEqual(
          results[1]?.targets.map((target) => [target.uid, target.status]),
          [[slow, "syndicated"]],
          JSON.stringify(results),
        );
      });

    it("a later post deleted or made private while an earlier post is sent is neither sent nor reported", async () => {
      const earlier = await fixture.createPost("2024-01-03T00:00:00Z", [slow]);
      const deleted = await fixture.createPost("2024-01-03T00:01:00Z", [other]);
      const kept = await fixture.createPost("2024-01-03T00:02:00Z", [other]);
      const { results } = await changedDuringRun(async () => {
        await fixture.posts.delete(deleted.url);
        await fixture.posts.update(kept.url, { replace: { visibility: ["private"] } });
      });
      assert.deepEqual(
        results.map((result) => result.url),
        [earlier.url],
      );
      assert.equal(otherTarget.callsFor(deleted.url).length, 0);
      assert.equal(otherTarget.callsFor(kept.url).length, 0);
    });

    it("own words saved and a thread choice made for a later post while an earlier post is sent are what it sends", async () => {
      await fixture.createPost("2024-01-04T00:00:00Z", [slow]);
      const worded = await fixture.createPost("2024-01-04T00:01:00Z", [other]);
      const threaded = await fixture.createPost("2024-01-04T00:02:00Z", [other]);
      await changedDuringRun(async () => {
        await fixture.syndication.copies.saveOwnText(worded, other, "Words saved during the run");
        await fixture.syndication.copies.saveThreadChoice(threaded, other, true);
      });
      assert.deepEqual(
        otherTarget.callsFor(worded.url).map((call) => call.text),
        ["Words saved during the run"],
      );
      assert.deepEqual(
        otherTarget.callsFor(threaded.url).map((call) => call.thread),
        [true],
      );
    });
  });
}
