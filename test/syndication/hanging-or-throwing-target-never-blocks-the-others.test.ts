import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import { ledgerRow, openSyndication, type SyndicationFixture, TestTarget } from "./syndication-fixture.ts";

const hanging = "https://hangs.example/@me";
const fine = "https://fine.example/@me";
const throwing = "https://throws.example/@me";
const garbage = "https://garbage.example/@me";

for (const engine of engines) {
  describe(`each target under its own timeout (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    let hangs: TestTarget;
    before(async () => {
      // Never answers and ignores the abort signal.
      hangs = new TestTarget(hanging, { name: "Hangs", behaviour: () => new Promise<string>(() => {}) });
      const throws = new TestTarget(throwing, {
        behaviour: () => {
          throw new Error("Throws: the service said no");
        },
      });
      const returnsGarbage = new TestTarget(garbage, { behaviour: () => "not a url" });
      fixture = await openSyndication(engine, [hangs, new TestTarget(fine), throws, returnsGarbage], {
        targetTimeoutMs: 150,
      });
    });
    after(() => fixture.close());

    it("a hanging target times out and fails while the other target of the post succeeds", async () => {
      const post = await fixture.createPost("2024-01-01T00:00:00Z", [hanging, fine]);
      const started = Date.now();
      const result = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.ok(Date.now() - started < 10_000, "the post did not wait for the hanging target");
      assert.equal(result.status, "partial");
      const [hung, ok] = result.targets;
      assert.equal(hung?.status, "failed");
      // The request may have been carried out, and this target has no idempotency: never resent.
      assert.equal(hung?.error, "Hangs did not answer within 0.15 s; unknown: check the target");
      assert.equal(ok?.status, "syndicated");
      assert.deepEqual(result.syndication, [ok?.url]);
      assert.equal(hangs.calls[0]?.signal.aborted, true, "the syndicator's signal was aborted");
      const row = await ledgerRow(fixture.database, post.id, hanging);
      assert.equal(row?.state, "unknown");
      assert.equal(row?.last_error, "Hangs did not answer within 0.15 s; unknown: check the target");
      const stored = await fixture.posts.findByUrl(post.url);
      assert.deepEqual(stored?.properties["mp-syndicate-to"], [hanging], "the failed target stays to do");
    });

    it("a target that throws, or returns no URL, fails with its message; the others go on", async () => {
      const post = await fixture.createPost("2024-01-02T00:00:00Z", [throwing, garbage, fine]);
      const result = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(result.status, "partial");
      assert.deepEqual(
        result.targets.map((target) => [target.uid, target.status, target.error]),
        [
          [throwing, "failed", "Throws: the service said no"],
          [garbage, "failed", `Target ${garbage} returned "not a url" instead of the URL of the copy`],
          [fine, "syndicated", undefined],
        ],
      );
    });

    it("a post whose every target fails is failed", async () => {
      const post = await fixture.createPost("2024-01-03T00:00:00Z", [throwing]);
      const result = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(result.status, "failed");
      assert.deepEqual(result.syndication, []);
    });
  });
}
