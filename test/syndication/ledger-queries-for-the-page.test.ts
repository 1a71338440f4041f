import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import { openSyndication, type SyndicationFixture, TestTarget } from "./syndication-fixture.ts";

const good = "https://good.example/@me";
const bad = "https://bad.example/@me";

for (const engine of engines) {
  describe(`what the admin page reads (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    before(async () => {
      const failing = new TestTarget(bad, {
        behaviour: () => {
          throw new Error("Bad: 500 Internal Server Error");
        },
      });
      fixture = await openSyndication(engine, [new TestTarget(good), failing]);
    });
    after(() => fixture.close());

    it("entries, attempts newest first, and the targets of many posts in one call", async () => {
      const one = await fixture.createPost("2024-01-01T00:00:00Z", [good, bad]);
      const two = await fixture.createPost("2024-01-02T00:00:00Z", [good]);
      const untouched = await fixture.createPost("2024-01-03T00:00:00Z", [good], { "post-status": "draft" });
      await fixture.syndication.runs.syndicatePost(one.url, "manual");
      await fixture.syndication.runs.syndicatePost(two.url, "manual");
      await fixture.syndication.runs.syndicatePost(one.url, "manual", { retryFailed: true });

      const entries = await fixture.syndication.reads.entriesForPost(one.id);
      const byUid = new Map(entries.map((entry) => [entry.targetUid, entry]));
      assert.equal(byUid.get(good)?.state, "syndicated");
      assert.match(byUid.get(good)?.url ?? "", /^https:\/\/good\.example\//);
      assert.equal(byUid.get(bad)?.state, "failed");
      assert.equal(byUid.get(bad)?.attempts, 2);
      assert.equal(byUid.get(bad)?.lastError, "Bad: 500 Internal Server Error");
      assert.match(byUid.get(bad)?.idempotencyKey ?? "", /^[0-9a-f]{32}$/);

      const attempts = await fixture.syndication.reads.attemptsForPost(one.id, 10);
      // The retry's attempt is the newest; the first call's two ran concurrently, in either order.
      assert.equal(attempts.length, 3);
      assert.deepEqual([attempts[0]?.targetUid, attempts[0]?.outcome], [bad, "failed"]);
      assert.deepEqual(
        attempts
          .slice(1)
          .map((attempt) => `${attempt.targetUid} ${attempt.outcome}`)
          .sort(),
        [`${bad} failed`, `${good} syndicated`],
      );
      assert.ok(attempts.every((attempt) => attempt.finishedAt !== null));
      assert.equal((await fixture.syndication.reads.attemptsForPost(one.id, 1)).length, 1);

      const summary = await fixture.syndication.reads.summaryForPosts([one.id, two.id, untouched.id]);
      assert.deepEqual([...summary.keys()].sort(), [one.id, two.id].sort());
      assert.deepEqual(
        summary.get(two.id)?.map((entry) => [entry.targetUid, entry.state]),
        [[good, "syndicated"]],
      );
      assert.equal(summary.get(one.id)?.length, 2);
      assert.equal((await fixture.syndication.reads.summaryForPosts([])).size, 0);

      const runs = await fixture.syndication.reads.recentRuns(2);
      assert.equal(runs.length, 2);
      assert.ok((runs[0]?.startedAt ?? 0) >= (runs[1]?.startedAt ?? 0));
    });
  });
}
