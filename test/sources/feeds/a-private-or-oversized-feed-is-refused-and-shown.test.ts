// Decision 0037: a feed on 127.0.0.1 is refused unless `fetch.allowPrivate`, and a 10 MB feed
// is refused with a clear error, end to end: the feed configured in a running possekit, the reason
// shown as the feed's error on /health, nothing parsed, recorded or sent. (The fetcher's own tests,
// polite-feed-fetching.test.ts, prove the rules; these prove the server applies its configuration
// to them. The memory a refused 10 MB body costs is a figure of `npm run bench -- --only feed-polling`.)
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { engines } from "../../helpers/databases.ts";
import { healthOf } from "../../helpers/health.ts";
import type { SiteEntry } from "./feed-site.ts";
import { type FeedWorld, startFeedWorld } from "./feed-world.ts";

const MB = 1024 * 1024;
const entry: SiteEntry = {
  id: "urn:post:1",
  url: "https://blog.example/posts/1/",
  title: "A post",
  content: "<p>A post.</p>",
  published: new Date().toISOString(),
};

async function feedOnHealth(world: FeedWorld): Promise<Record<string, unknown> | undefined> {
  const health = (await healthOf(world.server)) as Record<string, unknown>;
  const endpoint = health["endpoint-syndicate"] as { feeds?: Array<Record<string, unknown>> } | undefined;
  return endpoint?.feeds?.[0];
}

for (const engine of engines) {
  describe(`a feed on a private address, without fetch.allowPrivate (${engine.name})`, () => {
    let world: FeedWorld | undefined;
    after(() => world?.close());

    it("is refused without a request, and /health names the option to set", async () => {
      world = await startFeedWorld(engine, {
        allowPrivate: false,
        feed: { backfill: 1 },
        prepare: (site) => (site.entries = [entry]),
      });
      const read = await world.readAt(0);
      assert.equal(read.state, "failing");
      assert.match(read.lastError ?? "", /fetch\.allowPrivate/);
      assert.equal(world.site.requests.length, 0, "the site was never asked");
      assert.equal(world.feed.parses, 0);
      assert.equal((await world.posts()).length, 0);
      assert.equal(world.target.sandbox.statuses.length, 0, "backfill: 1 sent nothing either");
      const shown = await feedOnHealth(world);
      assert.equal(shown?.state, "failing");
      assert.match(String(shown?.error), /fetch\.allowPrivate/);
    });
  });

  describe(`a feed of 10 MB (${engine.name})`, () => {
    let world: FeedWorld | undefined;
    after(() => world?.close());

    it("is refused with a clear error and parsed never; the feed reads again once it is small", async () => {
      world = await startFeedWorld(engine, { prepare: (site) => (site.entries = [entry]) });
      const first = await world.readAt(0);
      assert.equal(first.state, "ok", first.lastError ?? "");
      const parses = world.feed.parses;
      const huge = Buffer.alloc(10 * MB, " ");
      world.site.answers.set("/feed", (_request, response) => {
        response.writeHead(200, { "content-type": "application/rss+xml" }).end(huge);
      });
      const refused = await world.nextRead();
      assert.equal(refused.state, "failing");
      assert.match(refused.lastError ?? "", /larger than 5 MB/);
      assert.equal(world.feed.parses, parses, "nothing of it parsed");
      assert.match(String((await feedOnHealth(world))?.error), /larger than 5 MB/);

      world.site.answers.delete("/feed");
      // Read again at once, as a push reads it (the scheduler's next turn is backed off).
      await world.feed.fetchNow();
      const recovered = await world.feed.report();
      assert.equal(recovered.state, "ok");
      assert.equal(recovered.entriesKnown, 1);
      assert.equal(world.target.sandbox.statuses.length, 0);
    });
  });
}
