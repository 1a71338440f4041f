// LinkedIn has no idempotency key. A create whose answer is lost may have made the post: the send
// becomes "unknown outcome", which no run resends by itself; the user says whether it appeared
// (confirm its address, or retry). A 429 waits until LinkedIn's limits reset, at the next 00:00 UTC.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { type LinkedinSandbox, startLinkedinSandbox } from "../../dev/sandbox/linkedin-server.ts";
import { LinkedinSyndicator } from "../../src/syndicators/linkedin/index.ts";
import { engines } from "../helpers/databases.ts";
import { collect, ledgerRow, openSyndication, type SyndicationFixture } from "./syndication-fixture.ts";

for (const engine of engines) {
  describe(`LinkedIn's unknown outcomes wait for the user; its 429s for midnight UTC (${engine.name})`, () => {
    let sandbox: LinkedinSandbox;
    let linkedin: LinkedinSyndicator;
    let fixture: SyndicationFixture<LinkedinSyndicator>;
    before(async () => {
      sandbox = await startLinkedinSandbox({ accessToken: "token" });
      linkedin = new LinkedinSyndicator({
        author: "urn:li:person:AbC123xyz",
        accessToken: "token",
        apiUrl: sandbox.url,
      });
      fixture = await openSyndication(engine, [linkedin]);
    });
    beforeEach(() => sandbox.clearBehaviour());
    after(async () => {
      await fixture.close();
      await sandbox.close();
    });

    it("a dropped answer to the create is never resent by a run; the user's retry sends it", async () => {
      sandbox.dropCreateAnswer();
      const post = await fixture.createPost("2024-01-01T00:00:00Z", [linkedin.info.uid]);
      const first = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(first.targets[0]?.status, "failed");
      assert.match(first.targets[0]?.error ?? "", /unknown: check the target$/);
      assert.equal(sandbox.posts.length, 1, "LinkedIn made the post");
      assert.equal((await ledgerRow(fixture.database, post.id, linkedin.info.uid))?.state, "unknown");

      await collect(await fixture.syndication.runs.startBatch("batch"));
      await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(sandbox.posts.length, 1, "still one post: nothing resent it by itself");
      const stored = await fixture.posts.findByUrl(post.url);
      assert.deepEqual(stored?.properties["mp-syndicate-to"], [linkedin.info.uid], "it waits for the user");

      // The user looked: it did not appear (or they want it again), and says so with Retry.
      const retried = await fixture.syndication.runs.retry(post.url);
      assert.equal(retried.targets[0]?.status, "syndicated");
      assert.equal(sandbox.posts.length, 2);
    });

    it("a 429 leaves the send failed, to be tried again at the next 00:00 UTC", async () => {
      sandbox.rateLimit("POST /rest/posts");
      const post = await fixture.createPost("2024-01-01T00:00:00Z", [linkedin.info.uid]);
      const before = Date.now();
      const result = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      const after = Date.now();
      assert.equal(result.targets[0]?.status, "failed");
      const row = await ledgerRow(fixture.database, post.id, linkedin.info.uid);
      assert.equal(row?.state, "failed");
      assert.equal(row?.permanent, false);
      const midnights = [before, after].map((ms) => (Math.floor(ms / 86_400_000) + 1) * 86_400_000);
      const next = new Date(row?.next_attempt_at ?? 0).getTime();
      assert.ok(
        midnights.some((midnight) => Math.abs(next - midnight) <= 1_000),
        `next try at ${new Date(next).toISOString()}, not 00:00 UTC`,
      );
    });
  });
}
