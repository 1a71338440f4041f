// A post's write-back happens when it has a link to add or a request to drop, either alone: a copy
// whose link never reached a post that no longer names its target is repaired (a link, no request),
// and a target named again while the post holds its copy's link is answered by dropping the request
// (a request, no link). A slip that wrote back only when both (or only one kind) were there would
// leave the post without its copy's link, or waiting for a target that has it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import {
  openSyndication,
  type SyndicationFixture,
  sentWithItsWriteBackLost,
  TestTarget,
} from "./syndication-fixture.ts";

const first = "https://first.example/@me";

for (const engine of engines) {
  describe(`a write-back happens for a link alone or a request alone (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    before(async () => {
      fixture = await openSyndication(engine, [new TestTarget(first)]);
    });
    after(() => fixture.close());

    it("a link alone: a copy whose link never reached the post, which no longer names its target, is written back", async () => {
      const post = await fixture.createPost("2024-06-01T00:00:00Z", [first]);
      const copy = await sentWithItsWriteBackLost(fixture, post.url);
      assert.ok(copy);
      // The user stops naming the target before the next run: nothing is requested any more.
      await fixture.posts.update(post.url, { replace: { "mp-syndicate-to": [] } });
      const result = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.deepEqual(
        result.targets.map((target) => [target.uid, target.status, target.url]),
        [[first, "already_syndicated", copy]],
      );
      assert.deepEqual((await fixture.posts.findByUrl(post.url))?.properties.syndication, [copy]);
      assert.equal(fixture.targets[0]?.callsFor(post.url).length, 1, "sent once");
    });

    it("a request alone: a target named again while the post holds its copy's link is no longer requested", async () => {
      const post = await fixture.createPost("2024-06-02T00:00:00Z", [first]);
      const copy = (await fixture.syndication.runs.syndicatePost(post.url, "manual")).targets[0]?.url;
      assert.ok(copy);
      await fixture.posts.update(post.url, { add: { "mp-syndicate-to": [first] } });
      const named = await fixture.posts.findByUrl(post.url);
      assert.deepEqual(named?.properties["mp-syndicate-to"], [first]);
      assert.deepEqual(named?.properties.syndication, [copy]);

      const result = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.deepEqual(
        result.targets.map((target) => [target.uid, target.status]),
        [[first, "already_syndicated"]],
      );
      const stored = await fixture.posts.findByUrl(post.url);
      assert.deepEqual(stored?.properties["mp-syndicate-to"] ?? [], [], "the request is answered");
      assert.deepEqual(stored?.properties.syndication, [copy]);
      assert.equal(fixture.targets[0]?.callsFor(post.url).length, 1, "sent once");
    });
  });
}
