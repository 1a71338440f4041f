// A post's targets are called side by side, not one after another (decision 0031): each of three
// targets answers only once all three have been called. Side by side they all answer at once; one
// after another, the first would wait for calls that never come, so it gives up and the post fails.
// No timing is measured, so a busy machine cannot make it flaky.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import {
  copyUrl,
  deferred,
  openSyndication,
  type SyndicationFixture,
  TestTarget,
} from "./syndication-fixture.ts";

const uids = ["https://one.example/@me", "https://two.example/@me", "https://three.example/@me"];
/** How long a called target waits for the others before it fails the post (only when they are not called). */
const WAIT_FOR_THE_OTHERS_MS = 10_000;

for (const engine of engines) {
  describe(`a post's targets are sent side by side (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    const called = new Set<string>();
    const allCalled = deferred();
    before(async () => {
      const targets = uids.map(
        (uid) =>
          new TestTarget(uid, {
            behaviour: async (call, count) => {
              called.add(uid);
              if (called.size === uids.length) allCalled.resolve();
              let giveUp: NodeJS.Timeout | undefined;
              const alone = new Promise<never>((_, reject) => {
                giveUp = setTimeout(
                  () =>
                    reject(
                      new Error(`${uid} was called, but the others were not: ${[...called].join(", ")}`),
                    ),
                  WAIT_FOR_THE_OTHERS_MS,
                );
              });
              try {
                await Promise.race([allCalled.promise, alone]);
              } finally {
                clearTimeout(giveUp);
              }
              return copyUrl(uid, call.postUrl, count);
            },
          }),
      );
      fixture = await openSyndication(engine, targets);
    });
    after(() => fixture.close());

    it("three targets that answer only when all three are called: the post is syndicated to all", async () => {
      const post = await fixture.createPost("2024-01-01T00:00:00Z", uids);
      const result = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.deepEqual([...called].sort(), [...uids].sort());
      assert.equal(result.status, "syndicated", JSON.stringify(result));
    });
  });
}
