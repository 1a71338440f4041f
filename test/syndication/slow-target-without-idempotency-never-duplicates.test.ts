// A Micropub site creates the copy but answers after our timeout. Micropub has no idempotency key,
// so a retry would make a second copy: the send becomes "unknown outcome" and is never resent by
// itself; only the user's retry sends it again. Mastodon, which keeps the key, is simply resent.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { MicropubSyndicator } from "../../src/syndicators/micropub/index.ts";
import { engines } from "../helpers/databases.ts";
import { type HangingMicropubTarget, startHangingMicropubTarget } from "../scale/hanging-micropub-target.ts";
import { collect, ledgerRow, openSyndication, type SyndicationFixture } from "./syndication-fixture.ts";

// The sends that must succeed (the user's retry) go over HTTP: room for a busy machine.
const TIMEOUT_MS = 1_000;

for (const engine of engines) {
  describe(`a slow target without idempotency is never sent twice by itself (${engine.name})`, () => {
    let site: HangingMicropubTarget;
    let micropub: MicropubSyndicator;
    let fixture: SyndicationFixture<MicropubSyndicator>;
    before(async () => {
      site = await startHangingMicropubTarget("site-token");
      micropub = new MicropubSyndicator({ micropubEndpoint: site.url, accessToken: "site-token" });
      fixture = await openSyndication(engine, [micropub], { targetTimeoutMs: TIMEOUT_MS });
    });
    after(async () => {
      await fixture.close();
      await site.close();
    });

    it("the copy made after the timeout stays the only one until the user sends again", async () => {
      site.holdAnswerOfCreate(1);
      const post = await fixture.createPost("2024-01-01T00:00:00Z", [micropub.info.uid]);
      const first = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(first.targets[0]?.status, "failed");
      assert.match(first.targets[0]?.error ?? "", /did not answer.*; unknown: check the target$/);
      assert.equal(site.created.length, 1, "the site made the copy");
      assert.equal((await ledgerRow(fixture.database, post.id, micropub.info.uid))?.state, "unknown");

      // Nothing a run does by itself sends it again.
      await collect(await fixture.syndication.runs.startBatch("batch"));
      await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(site.created.length, 1, "still exactly one copy");
      const stored = await fixture.posts.findByUrl(post.url);
      assert.deepEqual(stored?.properties["mp-syndicate-to"], [micropub.info.uid], "it waits for the user");

      // The user decides: send again.
      const retried = await fixture.syndication.runs.retry(post.url);
      assert.equal(retried.targets[0]?.status, "syndicated");
      assert.equal(site.created.length, 2);
    });
  });

  describe(`a slow target that keeps the idempotency key is resent with it (${engine.name})`, () => {
    it("Mastodon answering after the timeout: resent with the same key, one status", async () => {
      const sandbox = await startMastodonSandbox({ accessToken: "token" });
      const mastodon = new MastodonSyndicator({ url: sandbox.url, user: "demo", accessToken: "token" });
      const fixture = await openSyndication(engine, [mastodon], { targetTimeoutMs: TIMEOUT_MS });
      try {
        sandbox.setBehaviour({ hangMs: Number.POSITIVE_INFINITY, hangPhase: "after", times: 1 });
        const post = await fixture.createPost("2024-01-01T00:00:00Z", [mastodon.info.uid]);
        const first = await fixture.syndication.runs.syndicatePost(post.url, "manual");
        assert.equal(first.targets[0]?.status, "failed");
        const row = await ledgerRow(fixture.database, post.id, mastodon.info.uid);
        assert.equal(row?.state, "failed", "an ordinary failure, retried later");
        await fixture.syndication.runs.syndicatePost(post.url, "manual", { retryFailed: true });
        assert.equal(sandbox.statuses.length, 1, "the repeated key found the first status");
        assert.equal((await ledgerRow(fixture.database, post.id, mastodon.info.uid))?.state, "syndicated");
      } finally {
        await fixture.close();
        await sandbox.close();
      }
    });
  });
}
