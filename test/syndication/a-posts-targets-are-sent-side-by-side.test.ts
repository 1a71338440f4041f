// A post's targets are called side by side, not one after another (issue 19): three targets that
// each take 300 ms overlap in time. Measured on the timestamps the targets record when called and
// when they answer, not on the test's wall clock, so a busy machine cannot make it flaky.
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { engines } from "../helpers/databases.ts";
import { copyUrl, openSyndication, type SyndicationFixture, TestTarget } from "./syndication-fixture.ts";

const uids = ["https://one.example/@me", "https://two.example/@me", "https://three.example/@me"];

for (const engine of engines) {
  describe(`a post's targets are sent side by side (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    const spans = new Map<string, { start: number; end: number }>();
    before(async () => {
      const targets = uids.map(
        (uid) =>
          new TestTarget(uid, {
            behaviour: async (call, count) => {
              const start = performance.now();
              await sleep(300);
              spans.set(uid, { start, end: performance.now() });
              return copyUrl(uid, call.postUrl, count);
            },
          }),
      );
      fixture = await openSyndication(engine, targets);
    });
    after(() => fixture.close());

    it("three targets of 300 ms overlap: each was called before any of them answered", async () => {
      const post = await fixture.createPost("2024-01-01T00:00:00Z", uids);
      const result = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(result.status, "syndicated");
      assert.equal(spans.size, 3);
      const all = [...spans.values()];
      const lastStart = Math.max(...all.map((span) => span.start));
      const firstEnd = Math.min(...all.map((span) => span.end));
      // One after another, the last would start only after the first had answered (≥ 900 ms in all).
      assert.ok(
        lastStart < firstEnd,
        `the last target was called ${Math.round(lastStart - firstEnd)} ms after the first answered`,
      );
    });
  });
}
