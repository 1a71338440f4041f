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

const uid = "https://social.example/@me";

for (const engine of engines) {
  describe(`a batch includes posts that arrive while it runs (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    before(async () => {
      fixture = await openSyndication(engine, [new TestTarget(uid)]);
    });
    after(() => fixture.close());

    it("newer ones in order, and older-dated ones behind the cursor too; each post once", async () => {
      const [target] = fixture.targets;
      assert.ok(target);
      const gate = deferred();
      target.behaviour = gated(gate.promise, uid);
      const a = await fixture.createPost("2024-01-10T00:00:00Z", [uid]);
      const b = await fixture.createPost("2024-01-20T00:00:00Z", [uid]);
      // Names only a target that is not configured: it does not wait, so the run never walks it.
      const unconfigured = await fixture.createPost("2024-01-15T00:00:00Z", [
        "https://unconfigured.example/",
      ]);
      const run = await fixture.syndication.runs.startBatch("batch");
      const finished = collect(run);
      await target.called.promise;
      // While the first post is being sent: one newer than everything, one dated before the cursor.
      const newer = await fixture.createPost("2024-02-01T00:00:00Z", [uid]);
      const older = await fixture.createPost("2024-01-01T00:00:00Z", [uid]);
      gate.resolve();
      const { results, summary } = await finished;
      assert.deepEqual(
        results.map((result) => result.url),
        [a.url, b.url, newer.url, older.url],
      );
      assert.ok(!results.some((result) => result.url === unconfigured.url));
      assert.deepEqual(summary, { posts: 4, syndicated: 4, partial: 0, failed: 0, skipped: 0 });
      for (const post of [a, b, newer, older]) assert.equal(target.callsFor(post.url).length, 1);
    });
  });
}
