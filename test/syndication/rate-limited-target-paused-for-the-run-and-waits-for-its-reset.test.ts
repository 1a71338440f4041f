// A 429 from Mastodon with X-RateLimit-Reset: the next attempt waits for the service's reset time
// (later than the backoff), and the run's next posts are not sent to that target (the account is
// limited, not the post); the other target goes on. A 401 or a 403 pauses the target the same way,
// and a refusal outlasts the run.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { engines } from "../helpers/databases.ts";
import { collect, ledgerRow, openSyndication, type SyndicationFixture } from "./syndication-fixture.ts";

const statusPosts = (sandbox: MastodonSandbox) =>
  sandbox.requests.filter((request) => request.method === "POST" && request.path === "/api/v1/statuses");

for (const engine of engines) {
  describe(`rate limits and refused credentials pause a target for the run (${engine.name})`, () => {
    let limited: MastodonSandbox;
    let other: MastodonSandbox;
    let fixture: SyndicationFixture<MastodonSyndicator>;
    let limitedUid: string;
    let otherUid: string;
    before(async () => {
      limited = await startMastodonSandbox({ accessToken: "token", user: "limited" });
      other = await startMastodonSandbox({ accessToken: "token", user: "other" });
      const targets = [limited, other].map(
        (sandbox) => new MastodonSyndicator({ url: sandbox.url, user: sandbox.user, accessToken: "token" }),
      );
      limitedUid = targets[0]?.info.uid ?? "";
      otherUid = targets[1]?.info.uid ?? "";
      fixture = await openSyndication(engine, targets);
    });
    beforeEach(async () => {
      limited.clearBehaviour();
      other.clearBehaviour();
      // A pause lasts until the target can take posts (decision 0048): the user's "Check now" ends it.
      await fixture.syndication.runs.checkTargets();
    });
    after(async () => {
      await fixture.close();
      await Promise.all([limited.close(), other.close()]);
    });

    it("after a 429 on post 1, posts 2 and 3 are not sent to that target; the next try is at the reset", async () => {
      const resetAt = new Date(Date.now() + 3 * 60 * 60 * 1000);
      limited.rateLimit(resetAt);
      const posts = [];
      for (const day of ["01", "02", "03"]) {
        posts.push(await fixture.createPost(`2024-02-${day}T00:00:00Z`, [limitedUid, otherUid]));
      }
      const { results } = await collect(await fixture.syndication.runs.startBatch("batch"));
      assert.equal(statusPosts(limited).length, 1, "only post 1 reached the limited target");
      assert.equal(other.statuses.length, 3, "the other target got every post");

      const [firstResult, ...rest] = results;
      assert.match(firstResult?.targets[0]?.error ?? "", /^Mastodon: 429 Too many requests$/);
      for (const result of rest) {
        const target = result.targets.find((each) => each.uid === limitedUid);
        assert.equal(target?.status, "skipped");
        assert.match(target?.error ?? "", /^Paused: \S+ is rate limited \(.*\), until \d{4}-\d\d-\d\dT/);
      }

      const first = posts[0];
      assert.ok(first);
      const row = await ledgerRow(fixture.database, first.id, limitedUid);
      assert.equal(row?.state, "failed");
      // The backoff alone would say two minutes; the service said three hours.
      const waited = (row?.next_attempt_at?.getTime() ?? 0) - resetAt.getTime();
      assert.ok(
        Math.abs(waited) < 2000,
        `next attempt ${row?.next_attempt_at?.toISOString()} vs ${resetAt.toISOString()}`,
      );
      for (const later of posts.slice(1)) {
        assert.ok(later);
        const untouched = await ledgerRow(fixture.database, later.id, limitedUid);
        assert.equal(untouched, undefined, "no attempt was recorded for the paused target");
      }
    });

    it("a 401 on the first post: the target is left alone for the rest of the run", async () => {
      limited.setFailure(401, "The access token is invalid");
      for (const day of ["01", "02"]) await fixture.createPost(`2024-03-${day}T00:00:00Z`, [limitedUid]);
      const before = statusPosts(limited).length;
      const { results } = await collect(await fixture.syndication.runs.startBatch("batch"));
      assert.equal(statusPosts(limited).length - before, 1, "one refusal, not one per post");
      const second = results.find((result) => result.url.includes("post-5"));
      assert.match(
        second?.targets[0]?.error ?? "",
        /^Paused: \S+ refused the credentials \(.*\), until a check succeeds/,
      );
    });

    it("a 403 pauses the target as a 401 does, for the rest of the run and for the next run", async () => {
      limited.setFailure(403, "This action is outside the authorized scopes");
      const mine = new Set<string>();
      for (const day of ["01", "02"])
        mine.add((await fixture.createPost(`2024-04-${day}T00:00:00Z`, [limitedUid])).url);
      const before = statusPosts(limited).length;
      const { results } = await collect(await fixture.syndication.runs.startBatch("batch"));
      // Posts left over by the tests above may be in the run too: only this test's two count.
      const [first, second] = results.filter((result) => mine.has(result.url));
      assert.equal(statusPosts(limited).length - before, 1, "one refusal, not one per post");
      assert.match(first?.targets[0]?.error ?? "", /403/);
      assert.match(
        second?.targets[0]?.error ?? "",
        /^Paused: \S+ refused the credentials \(.*\), until a check succeeds/,
      );
      // The refusal is kept in the target's health: the next run starts with the target paused and
      // checks it first; the check is refused too, so nothing is sent (the service would take posts).
      limited.setFailure(
        403,
        "This action is outside the authorized scopes",
        "GET /api/v1/accounts/verify_credentials",
      );
      const third = await fixture.createPost("2024-04-03T00:00:00Z", [limitedUid]);
      const next = await collect(await fixture.syndication.runs.startBatch("batch"));
      assert.equal(statusPosts(limited).length - before, 1, "nothing sent while the refusal lasts");
      const thirdResult = next.results.find((result) => result.url === third.url);
      assert.match(thirdResult?.targets[0]?.error ?? "", /^Paused: \S+ refused the credentials/);
    });
  });
}
