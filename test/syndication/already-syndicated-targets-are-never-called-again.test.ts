import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PostResult } from "../../src/syndication/types.ts";
import { engines } from "../helpers/databases.ts";
import {
  collect,
  ledgerRow,
  openSyndication,
  type SyndicationFixture,
  sentWithItsWriteBackLost,
  TestTarget,
} from "./syndication-fixture.ts";

const first = "https://first.example/@me";
const second = "https://second.example/@me";

for (const engine of engines) {
  describe(`targets already syndicated (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    before(async () => {
      fixture = await openSyndication(engine, [new TestTarget(first), new TestTarget(second)]);
    });
    after(() => fixture.close());

    it("are reported, not called, and a URL the user removed stays removed (the user's edit wins)", async () => {
      const [one, two] = fixture.targets;
      assert.ok(one && two);
      const post = await fixture.createPost("2024-01-01T00:00:00Z", [first]);
      const sent = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      const copy = sent.targets[0]?.url;
      assert.ok(copy);

      // Someone edits the post: the target is named again, its URL removed, and a new target added.
      await fixture.posts.update(post.url, {
        replace: { "mp-syndicate-to": [first, second], syndication: [] },
      });
      const { results } = await collect(await fixture.syndication.runs.startBatch("batch"));
      assert.equal(one.callsFor(post.url).length, 1, "never called again");
      assert.equal(two.callsFor(post.url).length, 1);
      const [result] = results;
      assert.equal(result?.status, "syndicated");
      assert.deepEqual(
        result?.targets.map((target) => [target.uid, target.status, target.url]),
        [
          [first, "already_syndicated", copy],
          [second, "syndicated", two.calls[0] && result?.targets[1]?.url],
        ],
      );
      const stored = await fixture.posts.findByUrl(post.url);
      assert.deepEqual(
        stored?.properties.syndication,
        [result?.targets[1]?.url],
        "the removed URL is not back",
      );
      assert.deepEqual(stored?.properties["mp-syndicate-to"] ?? [], []);
    });

    it("a URL that never reached the post (its write failed) is repaired by the next run", async () => {
      const post = await fixture.createPost("2024-01-03T00:00:00Z", [first]);
      const copy = await sentWithItsWriteBackLost(fixture, post.url);
      assert.ok(copy);
      assert.equal((await fixture.posts.findByUrl(post.url))?.properties.syndication, undefined);
      await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.deepEqual((await fixture.posts.findByUrl(post.url))?.properties.syndication, [copy]);
      assert.equal(fixture.targets[0]?.callsFor(post.url).length, 1, "sent once");
    });

    it("outcomes undone with their write-back's statement are recorded again: never sent twice (decision 0068)", async () => {
      const [one, two] = fixture.targets;
      assert.ok(one && two);
      const post = await fixture.createPost("2024-01-04T00:00:00Z", [first, second]);
      const { updateAlongside } = fixture.posts;
      let undone = 0;
      // The statement records the outcomes, then fails (a division by zero once they are read), and
      // all of it is undone.
      fixture.posts.updateAlongside = (url, update, alongside) =>
        updateAlongside(url, update, {
          ...alongside,
          returning: `(SELECT CASE WHEN length(r::text) >= 0 THEN (1 / (length(r::text) * 0))::text::json END
            FROM (SELECT ${alongside.returning} AS r) AS recorded_then_failed)`,
        }).catch((error: unknown) => {
          undone += 1;
          throw error;
        });
      let sent: PostResult;
      try {
        sent = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      } finally {
        fixture.posts.updateAlongside = updateAlongside;
      }
      assert.equal(undone, 1, "the outcomes went into the write-back's statement, which failed");
      assert.deepEqual(
        sent.targets.map((target) => target.status),
        ["syndicated", "syndicated"],
      );
      for (const uid of [first, second])
        assert.equal((await ledgerRow(fixture.database, post.id, uid))?.state, "syndicated", uid);
      await collect(await fixture.syndication.runs.startBatch("batch"));
      assert.equal(one.callsFor(post.url).length, 1, "never sent again");
      assert.equal(two.callsFor(post.url).length, 1, "never sent again");
      const stored = await fixture.posts.findByUrl(post.url);
      assert.deepEqual(
        [...((stored?.properties.syndication as string[] | undefined) ?? [])].sort(),
        sent.targets.map((target) => target.url).sort(),
        "the next run wrote the links back",
      );
    });

    it("a post with nothing left to do is unchanged, its syndicated targets listed", async () => {
      const post = await fixture.createPost("2024-01-02T00:00:00Z", [first, second]);
      await fixture.syndication.runs.syndicatePost(post.url, "manual");
      const updatesBefore = fixture.updates.get(post.url);
      const again = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(again.status, "unchanged");
      assert.deepEqual(
        again.targets.map((target) => target.status),
        ["already_syndicated", "already_syndicated"],
      );
      assert.equal(again.syndication.length, 2);
      assert.equal(fixture.updates.get(post.url), updatesBefore, "no needless update");
      assert.equal(fixture.targets[0]?.callsFor(post.url).length, 1);
    });
  });
}
