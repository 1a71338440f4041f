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
const fast = "https://fast.example/@me";

for (const engine of engines) {
  describe(`no (post, target) is sent twice (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    before(async () => {
      fixture = await openSyndication(engine, [new TestTarget(slow), new TestTarget(fast)]);
    });
    after(() => fixture.close());

    it("a single-post request during the batch's send skips the claimed target and sends the rest once", async () => {
      const [slowTarget, fastTarget] = fixture.targets;
      assert.ok(slowTarget && fastTarget);
      const gate = deferred();
      slowTarget.behaviour = gated(gate.promise, slow);
      const post = await fixture.createPost("2024-01-01T00:00:00Z", [slow, fast]);

      const run = await fixture.syndication.runs.startBatch("batch");
      const batch = collect(run);
      // The batch has claimed and called the slow target and is waiting for its answer.
      await slowTarget.called.promise;

      const single = await fixture.instance().runs.syndicatePost(post.url, "manual");
      gate.resolve();
      const { results } = await batch;

      assert.equal(slowTarget.callsFor(post.url).length, 1);
      assert.equal(fastTarget.callsFor(post.url).length, 1);
      const singleSlow = single.targets.find((target) => target.uid === slow);
      assert.equal(singleSlow?.status, "skipped");
      assert.match(singleSlow?.error ?? "", /another run/);
      const batchResult = results[0];
      assert.ok(batchResult);
      // Whoever claimed the fast target first sent it; the other saw it taken.
      const fastStatuses = [single, batchResult].map(
        (result) => result.targets.find((target) => target.uid === fast)?.status,
      );
      assert.equal(fastStatuses.filter((status) => status === "syndicated").length, 1);

      const stored = await fixture.posts.findByUrl(post.url);
      assert.equal((stored?.properties.syndication as string[] | undefined)?.length, 2);
      assert.deepEqual(stored?.properties["mp-syndicate-to"] ?? [], []);
    });

    it("many concurrent requests from several instances for one post send each target once", async () => {
      const [slowTarget, fastTarget] = fixture.targets;
      assert.ok(slowTarget && fastTarget);
      slowTarget.behaviour = (call, count) =>
        `${slow}/copies/${count}?of=${encodeURIComponent(call.postUrl)}`;
      const post = await fixture.createPost("2024-01-02T00:00:00Z", [slow, fast]);
      const instances = [fixture.syndication, fixture.instance(), fixture.instance()];
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          (instances[index % instances.length] ?? fixture.syndication).runs.syndicatePost(post.url, "manual"),
        ),
      );
      assert.equal(slowTarget.callsFor(post.url).length, 1);
      assert.equal(fastTarget.callsFor(post.url).length, 1);
      const sent = results.flatMap((result) =>
        result.targets.filter((target) => target.status === "syndicated"),
      );
      assert.equal(sent.length, 2);
      const entries = await fixture.syndication.reads.entriesForPost(post.id);
      assert.deepEqual(entries.map((entry) => [entry.targetUid, entry.state, entry.attempts]).sort(), [
        [fast, "syndicated", 1],
        [slow, "syndicated", 1],
      ]);
    });

    it("batches on two instances started together: one runs, the post is sent once", async () => {
      const [slowTarget] = fixture.targets;
      assert.ok(slowTarget);
      // The run that starts stays on its post until every other start has been refused.
      const gate = deferred();
      slowTarget.behaviour = gated(gate.promise, slow);
      const post = await fixture.createPost("2024-01-03T00:00:00Z", [slow]);
      const attempts = await Promise.allSettled([
        fixture.syndication.runs.startBatch("batch"),
        fixture.instance().runs.startBatch("webhook"),
        fixture.instance().runs.startBatch("cli"),
      ]);
      const started = attempts.flatMap((attempt) => (attempt.status === "fulfilled" ? [attempt.value] : []));
      assert.equal(started.length, 1);
      const run = started[0];
      assert.ok(run);
      gate.resolve();
      await collect(run);
      assert.equal(slowTarget.callsFor(post.url).length, 1);
    });
  });
}
