import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import { engines } from "../helpers/databases.ts";
import {
  collect,
  copyUrl,
  ledgerRow,
  openSyndication,
  type SyndicationFixture,
  TestTarget,
} from "./syndication-fixture.ts";

const flaky = "https://flaky.example/@me";
const refusing = "https://refuses.example/@me";

const MINUTE = 60_000;

/** Minutes from the test clock's now until the row's next attempt: exact, since the clock stands still. */
function waitMinutes(nextAttemptAt: Date | null | undefined, now: number): number {
  assert.ok(nextAttemptAt);
  return (nextAttemptAt.getTime() - now) / MINUTE;
}

for (const engine of engines) {
  describe(`failed targets wait before they are tried again (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    let flakyTarget: TestTarget;
    let refusingTarget: TestTarget;
    before(async () => {
      flakyTarget = new TestTarget(flaky, {
        name: "Flaky",
        behaviour: () => {
          throw new SyndicationError("Flaky: 503 Service Unavailable", { status: 503, permanent: false });
        },
      });
      refusingTarget = new TestTarget(refusing, {
        name: "Refuses",
        behaviour: () => {
          throw new SyndicationError("Refuses: 401 The access token is invalid", {
            status: 401,
            permanent: true,
          });
        },
      });
      fixture = await openSyndication(engine, [flakyTarget, refusingTarget]);
    });
    after(() => fixture.close());

    it("attempt n waits min(2^n minutes, 1 day); meanwhile runs skip it with its last error", async () => {
      const post = await fixture.createPost("2024-01-01T00:00:00Z", [flaky]);
      const first = await collect(await fixture.syndication.runs.startBatch("batch"));
      assert.equal(first.results[0]?.status, "failed");
      let row = await ledgerRow(fixture.database, post.id, flaky);
      assert.equal(row?.state, "failed");
      assert.equal(row?.attempts, 1);
      assert.equal(row?.permanent, false);
      assert.equal(waitMinutes(row?.next_attempt_at, fixture.clock.now()), 2);

      const second = await collect(await fixture.syndication.runs.startBatch("batch"));
      assert.equal(flakyTarget.callsFor(post.url).length, 1, "not called during the backoff");
      const skipped = second.results[0]?.targets[0];
      assert.equal(second.results[0]?.status, "unchanged");
      assert.equal(skipped?.status, "skipped");
      assert.match(skipped?.error ?? "", /^Flaky: 503 Service Unavailable \(next attempt after /);

      // A millisecond before the wait is over, still skipped.
      fixture.clock.advance(2 * MINUTE - 1);
      await collect(await fixture.syndication.runs.startBatch("batch"));
      assert.equal(flakyTarget.callsFor(post.url).length, 1, "not called a millisecond early");

      // The wait is over. The retry uses the key stored in the row, not one derived afresh.
      await fixture.database.query("UPDATE syndication_targets SET idempotency_key = 'stored-key'");
      fixture.clock.advance(1);
      await collect(await fixture.syndication.runs.startBatch("batch"));
      assert.equal(flakyTarget.callsFor(post.url).length, 2);
      assert.equal(flakyTarget.calls[1]?.idempotencyKey, "stored-key");
      row = await ledgerRow(fixture.database, post.id, flaky);
      assert.equal(row?.attempts, 2);
      assert.equal(waitMinutes(row?.next_attempt_at, fixture.clock.now()), 4);

      // After many attempts the wait is capped at a day.
      await fixture.database.query("UPDATE syndication_targets SET attempts = 40");
      fixture.clock.advance(4 * MINUTE);
      await collect(await fixture.syndication.runs.startBatch("batch"));
      row = await ledgerRow(fixture.database, post.id, flaky);
      assert.equal(row?.attempts, 41);
      assert.equal(waitMinutes(row?.next_attempt_at, fixture.clock.now()), 24 * 60);
    });

    it("a permanent refusal is not retried automatically, only by the user", async () => {
      const post = await fixture.createPost("2024-01-02T00:00:00Z", [refusing]);
      await fixture.syndication.runs.syndicatePost(post.url, "manual");
      const row = await ledgerRow(fixture.database, post.id, refusing);
      assert.equal(row?.state, "failed");
      assert.equal(row?.permanent, true);
      assert.equal(row?.next_attempt_at, null);

      const again = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(refusingTarget.callsFor(post.url).length, 1);
      assert.match(again.targets[0]?.error ?? "", /401 The access token is invalid \(refused permanently/);

      // The user fixed the token and retries from the page.
      refusingTarget.behaviour = (call, count) => copyUrl(refusing, call.postUrl, count);
      const retried = await fixture.syndication.runs.retry(post.url, [refusing]);
      assert.equal(retried.status, "syndicated");
      assert.equal(refusingTarget.callsFor(post.url).length, 2);
      assert.equal((await ledgerRow(fixture.database, post.id, refusing))?.state, "syndicated");
    });

    it("retryFailed sends targets in backoff at once", async () => {
      const post = await fixture.createPost("2024-01-03T00:00:00Z", [flaky]);
      await fixture.syndication.runs.syndicatePost(post.url, "manual");
      flakyTarget.behaviour = (call, count) => copyUrl(flaky, call.postUrl, count);
      const skipped = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(skipped.targets[0]?.status, "skipped");
      const forced = await fixture.syndication.runs.syndicatePost(post.url, "manual", { retryFailed: true });
      assert.equal(forced.targets[0]?.status, "syndicated");
      assert.equal(flakyTarget.callsFor(post.url).length, 2);
    });
  });
}
