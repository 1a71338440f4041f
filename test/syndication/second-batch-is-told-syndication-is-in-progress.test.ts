import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { SyndicationInProgressError } from "../../src/syndication/syndication.ts";
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
  describe(`one batch at a time (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    before(async () => {
      fixture = await openSyndication(engine, [new TestTarget(uid)]);
    });
    after(() => fixture.close());

    it("a second startBatch during a run throws SyndicationInProgressError saying which run and since when", async () => {
      const [target] = fixture.targets;
      assert.ok(target);
      const gate = deferred();
      target.behaviour = gated(gate.promise, uid);
      await fixture.createPost("2024-01-01T00:00:00Z", [uid]);
      const run = await fixture.syndication.runs.startBatch("webhook");
      const finished = collect(run);
      await target.called.promise;

      for (const other of [fixture.syndication, fixture.instance({ holder: "other-instance" })]) {
        await assert.rejects(other.runs.startBatch("batch"), (error: unknown) => {
          assert.ok(error instanceof SyndicationInProgressError);
          assert.equal(error.inProgress.runId, run.id);
          assert.equal(error.inProgress.trigger, "webhook");
          assert.equal(error.inProgress.holder, fixture.syndication.holder);
          assert.ok(error.retryAfterSeconds >= 1 && error.retryAfterSeconds <= 30);
          assert.match(error.message, /already in progress/);
          return true;
        });
      }
      const current = await fixture.syndication.reads.inProgress();
      assert.equal(current?.runId, run.id);
      assert.ok(current && current.since <= new Date() && current.expiresAt > current.since);

      gate.resolve();
      assert.equal((await finished).summary.posts, 1);
      assert.equal(await fixture.syndication.reads.inProgress(), null);
      // The lease is free again.
      await collect(await fixture.instance({ holder: "other-instance" }).runs.startBatch("batch"));
    });

    it("of many concurrent startBatch calls on several instances, exactly one starts", async () => {
      const [target] = fixture.targets;
      assert.ok(target);
      // The run that starts stays on its post until every call has been answered.
      const gate = deferred();
      target.behaviour = gated(gate.promise, uid);
      await fixture.createPost("2024-01-02T00:00:00Z", [uid]);
      const instances = Array.from({ length: 5 }, (_, index) =>
        fixture.instance({ holder: `instance-${index}` }),
      );
      const attempts = await Promise.allSettled(
        Array.from({ length: 20 }, (_, index) => instances[index % 5]?.runs.startBatch("batch")),
      );
      const started = attempts.filter((attempt) => attempt.status === "fulfilled");
      const refused = attempts.filter(
        (attempt) => attempt.status === "rejected" && attempt.reason instanceof SyndicationInProgressError,
      );
      assert.equal(started.length, 1);
      assert.equal(refused.length, 19);
      gate.resolve();
      await Promise.all(instances.map((instance) => instance.runs.idle()));
    });
  });
}
