// Decision 0048: a 429 with a reset an hour ahead pauses the target until then, across runs
// (batch, single post, a user's retry) and for the scheduler: not one more request reaches it, and
// nothing is due for it, until the injected clock passes the reset. Then its posts go out.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { engines } from "../helpers/databases.ts";
import { collect, openSyndication, type SyndicationFixture } from "./syndication-fixture.ts";

const HOUR = 3_600_000;

for (const engine of engines) {
  describe(`a 429 pauses the target until its reset, across runs (${engine.name})`, () => {
    let limited: MastodonSandbox;
    let other: MastodonSandbox;
    let fixture: SyndicationFixture<MastodonSyndicator>;
    let limitedUid: string;
    let otherUid: string;
    let now = Date.now();
    const toLimited = () => limited.requests.filter((request) => request.path.startsWith("/api/v1/statuses"));
    before(async () => {
      limited = await startMastodonSandbox({ accessToken: "token", user: "limited" });
      other = await startMastodonSandbox({ accessToken: "token", user: "other" });
      const targets = [limited, other].map(
        (sandbox) => new MastodonSyndicator({ url: sandbox.url, user: sandbox.user, accessToken: "token" }),
      );
      limitedUid = targets[0]?.info.uid ?? "";
      otherUid = targets[1]?.info.uid ?? "";
      fixture = await openSyndication(engine, targets, { clock: () => now });
    });
    after(async () => {
      await fixture.close();
      await Promise.all([limited.close(), other.close()]);
    });

    it("sends 0 requests to it for an hour, whoever asks, and the scheduler finds nothing due for it", async () => {
      const resetAt = new Date(now + HOUR);
      limited.rateLimit(resetAt);
      const first = await fixture.createPost("2024-02-01T00:00:00Z", [limitedUid, otherUid]);
      await collect(await fixture.syndication.runs.startBatch("batch"));
      assert.equal(toLimited().length, 1, "the 429 itself");

      // Ten minutes later: new posts, a batch, a single post, a user's retry.
      now += 10 * 60_000;
      const second = await fixture.createPost("2024-02-02T00:00:00Z", [limitedUid, otherUid]);
      const third = await fixture.createPost("2024-02-03T00:00:00Z", [limitedUid]);
      const { results } = await collect(await fixture.syndication.runs.startBatch("batch"));
      const single = await fixture.syndication.runs.syndicatePost(third.url, "manual");
      const retried = await fixture.syndication.runs.syndicatePost(third.url, "manual", {
        retryFailed: true,
      });
      assert.equal(toLimited().length, 1, "no request reached the rate-limited target before its reset");
      assert.equal(other.statuses.length, 2, "the other target goes on");
      // Post 1 waits for its own next attempt (the reset); the others are held back by the pause.
      for (const result of [...results.filter((each) => each.url !== first.url), single, retried]) {
        const target = result.targets.find((each) => each.uid === limitedUid);
        assert.equal(target?.status, "skipped");
        const said =
          /^Paused: @limited@\S+ is rate limited \(Mastodon: 429 Too many requests\), until (\S+)$/.exec(
            target?.error ?? "",
          );
        assert.ok(said, target?.error);
        // The service's reset time, to the second it wrote.
        assert.ok(Math.abs(Date.parse(said[1] ?? "") - resetAt.getTime()) < 2000, said[1]);
      }
      // Only the paused target's posts wait: the scheduler wakes at the reset, not now.
      const due = (await fixture.syndication.due.nextDue())?.getTime() ?? 0;
      assert.ok(Math.abs(due - resetAt.getTime()) < 2000, `next due ${new Date(due).toISOString()}`);
      assert.equal((await fixture.syndication.reads.pausedTargets()).get(limitedUid)?.kind, "rate_limited");
      assert.deepEqual(
        results.map((each) => each.url),
        [first.url, second.url, third.url],
      );
    });

    it("after the reset the posts it held back go out", async () => {
      limited.clearBehaviour();
      now += HOUR;
      assert.equal((await fixture.syndication.reads.pausedTargets()).size, 0);
      const due = await fixture.syndication.due.nextDue();
      assert.ok(due && due.getTime() <= now, "the held-back posts are due");
      await collect(await fixture.syndication.runs.startBatch("batch"));
      // Post 1's own next attempt was the reset too (its 429 said when): all three go out, once each.
      assert.equal(limited.statuses.length, 3, "posts 1, 2 and 3 reached it");
      assert.equal(toLimited().length, 4, "the 429, then one request per post");
    });
  });
}
