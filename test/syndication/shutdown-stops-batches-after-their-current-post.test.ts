import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { SyndicationShuttingDownError } from "../../src/syndication/syndication.ts";
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
  describe(`shutting down (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    before(async () => {
      fixture = await openSyndication(engine, [new TestTarget(uid)]);
    });
    after(() => fixture.close());

    it("lets the current post finish, stops the batch, releases the lease, and starts nothing new", async () => {
      const [target] = fixture.targets;
      assert.ok(target);
      const gate = deferred();
      target.behaviour = gated(gate.promise, uid);
      const first = await fixture.createPost("2024-01-01T00:00:00Z", [uid]);
      const second = await fixture.createPost("2024-01-02T00:00:00Z", [uid]);
      const run = await fixture.syndication.runs.startBatch("batch");
      const finished = collect(run);
      await target.called.promise;

      const stopped = fixture.syndication.runs.shutdown();
      gate.resolve();
      await stopped;
      const { results } = await finished;
      assert.deepEqual(
        results.map((result) => result.url),
        [first.url],
      );
      assert.equal(results[0]?.status, "syndicated", "the post in hand was finished");
      assert.equal(target.callsFor(second.url).length, 0);
      assert.equal(await fixture.syndication.reads.inProgress(), null);
      assert.equal((await fixture.syndication.reads.recentRuns(1))[0]?.status, "abandoned");
      await assert.rejects(fixture.syndication.runs.startBatch("batch"), SyndicationShuttingDownError);

      // Another instance picks up where it stopped.
      const { results: rest } = await collect(await fixture.instance().runs.startBatch("batch"));
      assert.deepEqual(
        rest.map((result) => result.url),
        [second.url],
      );
    });
  });
}
