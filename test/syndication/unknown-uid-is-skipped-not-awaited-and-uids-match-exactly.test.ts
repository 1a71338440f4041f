import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import { collect, openSyndication, type SyndicationFixture, TestTarget } from "./syndication-fixture.ts";

const configured = "https://social.example/@me";

for (const engine of engines) {
  describe(`targets are named by their exact uid (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    before(async () => {
      fixture = await openSyndication(engine, [new TestTarget(configured)]);
    });
    after(() => fixture.close());

    it("a post naming only uids no target has does not wait: a run skips it, each uid named, never matched by prefix", async () => {
      const unknown = "https://elsewhere.example/@me";
      // Each shares a prefix with the configured uid, or the configured uid is a prefix of it.
      const lookalikes = [
        "https://social.example/@me2",
        "https://social.example/",
        "https://social.example/@m",
      ];
      const post = await fixture.createPost("2024-01-01T00:00:00Z", [unknown, ...lookalikes]);
      const { results, summary } = await collect(await fixture.syndication.runs.startBatch("batch"));
      assert.equal(fixture.targets[0]?.calls.length, 0);
      assert.deepEqual(results, [], "the batch does not walk it");
      assert.equal(summary.posts, 0);
      assert.deepEqual(await fixture.syndication.reads.postsNeedingAttention(), { needingUser: 0, all: 0 });
      const result = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(result.status, "unchanged");
      assert.deepEqual(
        result.targets.map((target) => [
          target.uid,
          target.name,
          target.status,
          target.error,
          target.unconfigured,
        ]),
        [unknown, ...lookalikes].map((uid) => [
          uid,
          uid,
          "skipped",
          `No syndication target is configured for ${uid}; the post does not wait for it`,
          true,
        ]),
      );
      assert.equal(fixture.targets[0]?.calls.length, 0);
      const stored = await fixture.posts.findByUrl(post.url);
      assert.deepEqual(
        stored?.properties["mp-syndicate-to"],
        [unknown, ...lookalikes],
        "kept, should it come back",
      );
      assert.equal(fixture.updates.get(post.url), undefined, "nothing to write back");
    });

    it("the configured uid beside an unknown one: syndicated (the unknown one is not waited for)", async () => {
      const post = await fixture.createPost("2024-01-02T00:00:00Z", ["https://nowhere.example/", configured]);
      const result = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(result.status, "syndicated");
      assert.equal(fixture.targets[0]?.callsFor(post.url).length, 1);
      const stored = await fixture.posts.findByUrl(post.url);
      assert.deepEqual(stored?.properties["mp-syndicate-to"], ["https://nowhere.example/"]);
    });
  });
}
