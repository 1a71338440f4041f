import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import { collect, openSyndication, type SyndicationFixture, TestTarget } from "./syndication-fixture.ts";

const mastodon = "https://mastodon.example/@me";
const bluesky = "https://bsky.example/profile/me";

for (const engine of engines) {
  describe(`a batch syndicates every awaiting post oldest first (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    before(async () => {
      fixture = await openSyndication(engine, [new TestTarget(mastodon), new TestTarget(bluesky)]);
    });
    after(() => fixture.close());

    it("processes posts by published time then creation, each target once, one update per post", async () => {
      const late = await fixture.createPost("2024-03-03T00:00:00Z", [mastodon, bluesky]);
      const tieA = await fixture.createPost("2024-03-02T00:00:00Z", [mastodon]);
      const tieB = await fixture.createPost("2024-03-02T00:00:00Z", [bluesky]);
      const early = await fixture.createPost("2024-03-01T00:00:00Z", [mastodon, bluesky]);
      const draft = await fixture.createPost("2024-01-01T00:00:00Z", [mastodon], { "post-status": "draft" });

      const run = await fixture.syndication.runs.startBatch("batch");
      const { results, summary } = await collect(run);

      assert.deepEqual(
        results.map((result) => result.url),
        [early.url, tieA.url, tieB.url, late.url],
      );
      assert.deepEqual(summary, { posts: 4, syndicated: 4, partial: 0, failed: 0, skipped: 0 });
      const [m, b] = fixture.targets;
      assert.ok(m && b);
      assert.deepEqual(
        m.calls.map((call) => call.postUrl),
        [early.url, tieA.url, late.url],
      );
      assert.deepEqual(
        b.calls.map((call) => call.postUrl),
        [early.url, tieB.url, late.url],
      );
      assert.equal(m.callsFor(draft.url).length, 0, "drafts are not syndicated");

      const first = results[0];
      assert.ok(first);
      assert.equal(first.status, "syndicated");
      assert.deepEqual(
        first.targets.map((target) => [target.uid, target.status]),
        [
          [mastodon, "syndicated"],
          [bluesky, "syndicated"],
        ],
      );
      assert.equal(first.targets[0]?.name, `Target ${mastodon}`);

      for (const post of [early, tieA, tieB, late]) {
        assert.equal(fixture.updates.get(post.url), 1, `one update for ${post.url}`);
        const stored = await fixture.posts.findByUrl(post.url);
        const result = results.find((each) => each.url === post.url);
        assert.ok(stored && result);
        assert.deepEqual(stored.properties.syndication, result.syndication);
        assert.equal(
          (stored.properties.syndication as string[]).length,
          (post.properties["mp-syndicate-to"] as string[]).length,
        );
        assert.deepEqual(stored.properties["mp-syndicate-to"] ?? [], []);
      }
    });

    it("with nothing awaiting, ends at once with an empty summary", async () => {
      const { results, summary } = await collect(await fixture.syndication.runs.startBatch("batch"));
      assert.deepEqual(results, []);
      assert.deepEqual(summary, { posts: 0, syndicated: 0, partial: 0, failed: 0, skipped: 0 });
    });

    it("records each run with its counts", async () => {
      const runs = await fixture.syndication.reads.recentRuns(5);
      assert.equal(runs.length, 2);
      assert.equal(runs[0]?.status, "finished");
      assert.deepEqual(runs[0]?.summary, { posts: 0, syndicated: 0, partial: 0, failed: 0, skipped: 0 });
      assert.deepEqual(runs[1]?.summary, { posts: 4, syndicated: 4, partial: 0, failed: 0, skipped: 0 });
      assert.equal(runs[1]?.kind, "batch");
      assert.equal(runs[1]?.trigger, "batch");
      assert.equal(runs[1]?.holder, fixture.syndication.holder);
      assert.ok(runs[1]?.finishedAt);
      assert.equal(await fixture.syndication.reads.inProgress(), null, "the lease is released");
    });
  });
}
