// Decision 0034: a post recorded from elsewhere goes out by itself (the scheduler wakes
// for it: it sleeps a minute otherwise), and a change recorded of it reaches the existing follow-up
// as a Micropub edit does: the copy is edited once, its link kept; recording the same post again,
// or with other links or targets only, is no change and sends nothing.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { KnownPostInput, KnownPosts } from "../../src/contract/known-posts.ts";
import { type FollowWorld, startFollowWorld } from "../follow/follow-world.ts";
import { engines } from "../helpers/databases.ts";
import { until } from "../helpers/eventually.ts";
import { looks, schedulerOf } from "../schedule/scheduled-server.ts";

const PUT = /^\/api\/v1\/statuses\/\d+$/;
// Longer than any wait below: only a listener told of the record wakes the scheduler in time.
const SLEEPY_SCHEDULE = {
  schedule: { enabled: true, whenLive: false, maxSleepMs: 60_000 },
  retry: { baseMs: 100, maxMs: 400 },
};

for (const engine of engines) {
  describe(`an edit recorded from elsewhere edits the copy once (${engine.name})`, () => {
    let world: FollowWorld | undefined;
    let known: KnownPosts;
    before(async () => {
      world = await startFollowWorld(engine, SLEEPY_SCHEDULE);
      assert.ok(world.app.server.host.knownPosts);
      known = world.app.server.host.knownPosts;
    });
    after(async () => {
      await world?.close();
    });

    it("sends it, edits the copy once for a change, and nothing for the same post again", async () => {
      assert.ok(world);
      const { target } = world;
      const entry = (content: string, extra: Record<string, unknown> = {}): KnownPostInput => ({
        origin: "feed:blog",
        url: "https://blog.example/2026/a-post/",
        published: new Date("2026-03-01T09:00:00Z"),
        properties: { content, "mp-syndicate-to": [target.uid], ...extra },
      });
      const first = await known.record(entry("First words"));
      assert.equal(first.outcome, "new");
      await until("the copy's link is in the row", async () => {
        const row = await known.findByUrl(first.post.url);
        return Array.isArray(row?.properties.syndication) && row.properties.syndication.length === 1;
      });
      const status = target.sandbox.statuses[0];
      assert.ok(status);
      assert.match(status.text, /^First words/);

      const edited = await known.record(entry("Second words, fixed"));
      assert.equal(edited.outcome, "changed");
      assert.equal(edited.post.id, first.post.id, "the same post");
      assert.deepEqual(edited.post.properties.syndication, [status.url], "its copy's link is kept");
      await until("the copy is edited", async () => world?.requests("PUT", PUT).length === 1);
      assert.match(status.text, /^Second words, fixed/);

      const again = await known.record(entry("Second words, fixed"));
      assert.equal(again.outcome, "unchanged");
      const otherLinks = await known.record(
        entry("Second words, fixed", { syndication: ["https://elsewhere.example/1"], "mp-syndicate-to": [] }),
      );
      assert.equal(otherLinks.outcome, "unchanged", "links and targets are the core's, not the source's");
      assert.deepEqual(otherLinks.post.properties.syndication, [status.url]);
      await looks(schedulerOf(world.app));
      assert.equal(world.requests("PUT", PUT).length, 1, "no second edit");
      assert.equal(target.sandbox.statuses.length, 1, "never a second copy");
    });

    it("refuses a URL that is the site's own post", async () => {
      assert.ok(world);
      const own = await world.app.createPost({ content: "Own", targets: [] });
      await assert.rejects(
        known.record({ origin: "feed:blog", url: own, published: new Date(), properties: { content: "x" } }),
        { name: "KnownPostConflictError" },
      );
      assert.equal((await world.properties(own)).content, "Own");
    });
  });
}
