import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import {
  collect,
  copyUrl,
  openSyndication,
  type SyndicationFixture,
  TestTarget,
} from "./syndication-fixture.ts";

const uid = "https://social.example/@me";
const POSTS = 5;

// PGlite answers on the server's own thread through microtasks: a batch whose target answers
// without any I/O would otherwise hold every request (and every timer) until its last post
// (decision 0078: the embedded database lets the loop turn after each statement).
for (const engine of engines) {
  describe(`a batch lets the event loop turn between posts (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    before(async () => {
      fixture = await openSyndication(engine, [new TestTarget(uid)]);
    });
    after(() => fixture.close());

    it("work queued by the first send runs before the next post is sent", async () => {
      const [target] = fixture.targets;
      assert.ok(target);
      let turned = false;
      const turnedAtSend: boolean[] = [];
      target.behaviour = async (call, count) => {
        turnedAtSend.push(turned);
        if (count === 1) setImmediate(() => (turned = true));
        return copyUrl(uid, call.postUrl, count);
      };
      for (let day = 1; day <= POSTS; day += 1) await fixture.createPost(`2024-01-0${day}T00:00:00Z`, [uid]);
      const { summary } = await collect(await fixture.syndication.runs.startBatch("batch"));
      assert.equal(summary.syndicated, POSTS);
      assert.deepEqual(turnedAtSend, [false, ...Array(POSTS - 1).fill(true)]);
    });

    // Before its first send a batch takes the lease, settles what a dead process left, lists a page
    // and claims: a chain of statements that on PGlite held the thread for all of them at once.
    it("work queued as the batch starts runs before its first post is sent", async () => {
      const [target] = fixture.targets;
      assert.ok(target);
      await fixture.createPost("2024-02-01T00:00:00Z", [uid]);
      let turned = false;
      const turnedAtSend: boolean[] = [];
      target.behaviour = async (call, count) => {
        turnedAtSend.push(turned);
        return copyUrl(uid, call.postUrl, count);
      };
      const run = await fixture.syndication.runs.startBatch("batch");
      setImmediate(() => (turned = true));
      const { summary } = await collect(run);
      assert.equal(summary.syndicated, 1);
      assert.deepEqual(turnedAtSend, [true]);
    });
  });
}
