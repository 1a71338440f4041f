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
    before(async () => {
      fixture = await openSyndication(engine, [new TestTarget(slow), new TestTarget(other)]);
    });
    after(() => fixture.close());

    it("a target removed from a later post while an earlier post is sent is not sent to", async () => {
      const [slowTarget, otherTarget] = fixture.targets;
      assert.ok(slowTarget && otherTarget);
      const gate = deferred();
      slowTarget.behaviour = gated(gate.promise, slow);
      await fixture.createPost("2024-01-01T00:00:00Z", [slow]);
      const later = await fixture.createPost("2024-01-02T00:00:00Z", [other, slow]);
      const run = await fixture.syndication.runs.startBatch("batch");
      const finished = collect(run);
      await slowTarget.called.promise;
      await fixture.posts.update(later.url, { delete: { "mp-syndicate-to": [other] } });
      // Long enough for the listed page to count as stale (the first post's targets were slow).
      fixture.clock.advance(1_100);
      gate.resolve();
      const { results } = await finished;
      assert.equal(otherTarget.callsFor(later.url).length, 0);
      assert.equal(slowTarget.callsFor(later.url).length, 1);
      assert.deepEqual(
        results[1]?.targets.map((target) => target.uid),
        [slow],
      );
    });
  });
}
