// Decision 0037: a push reads the feed at once, long before its next poll. The feed names a
// WebSub hub: possekit subscribes at the first read, answers the hub's verification at its public
// callback, and a notification reads the feed and sends its new entry, the test clock standing
// still (a poll would need five minutes of it). The hub is on plain http: it gets no secret, and the
// notification is only a sign to read the feed from the site (signatures: websub-subscription). A signed
// deploy webhook reads every feed before its run, so the run sends the new entry.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PostResult } from "../../../src/syndication/types.ts";
import { engines } from "../../helpers/databases.ts";
import { hubSignature256, SECRET } from "../../helpers/webhook-signers.ts";
import { sendWebhook } from "../../webhooks-http/webhook-requests.ts";
import type { SiteEntry } from "./feed-site.ts";
import { eventually, type FeedWorld, startFeedWorld } from "./feed-world.ts";
import { TestHub } from "./test-hub.ts";

const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString();
const entry = (n: number, daysAgo: number): SiteEntry => ({
  id: `urn:post:${n}`,
  url: `https://blog.example/posts/${n}/`,
  title: `Post number ${n}`,
  content: `<p>Post number ${n}.</p>`,
  published: day(daysAgo),
});
const PUSH_TO_READ_LIMIT_MS = 60_000;

for (const engine of engines) {
  describe(`a WebSub notification reads the feed at once (${engine.name})`, () => {
    let world: FeedWorld | undefined;
    const hub = new TestHub();
    before(async () => {
      await hub.start();
      world = await startFeedWorld(engine, {
        format: "atom",
        prepare: (site) => {
          site.hub = hub.url;
          site.entries = [entry(2, 2), entry(1, 3)];
        },
      });
    });
    after(async () => {
      await world?.close();
      await hub.server.close();
    });

    it("subscribes at the first read, and a notification sends the new entry with no poll", async () => {
      assert.ok(world);
      await world.readAt(0);
      const verification = await hub.verification(0);
      assert.equal(verification.mode, "subscribe");
      assert.equal(verification.status, 200, "the challenge is echoed");
      assert.match(verification.callback, new RegExp(`^${world.server.url}/syndicate/websub/`));
      const subscription = hub.requests[0]?.form;
      assert.ok(subscription);
      assert.equal(subscription.get("hub.topic"), `${world.site.url}/feed`);
      assert.equal(subscription.has("hub.secret"), false, "no secret to a hub on plain http");

      const fresh = entry(3, 0);
      world.site.entries = [fresh, ...world.site.entries];
      world.clock.advance(1_000);
      const pushedAt = world.clock.now();
      assert.equal(await hub.publish(subscription, world.site.current().body), 202);
      const read = await world.readAt(pushedAt);
      assert.ok((read.lastFetchAt?.getTime() ?? Infinity) - pushedAt <= PUSH_TO_READ_LIMIT_MS);
      assert.ok(
        (world.feed.nextFetchAt()?.getTime() ?? 0) > pushedAt + PUSH_TO_READ_LIMIT_MS,
        "no poll was due",
      );
      await eventually("the new entry is sent", async () =>
        world?.target.sandbox.statuses.length === 1 ? true : undefined,
      );
      assert.match(world.target.sandbox.statuses[0]?.text ?? "", /Post number 3/);
    });
  });

  describe(`a signed deploy webhook reads every feed before its run (${engine.name})`, () => {
    let world: FeedWorld | undefined;
    before(async () => {
      world = await startFeedWorld(engine, {
        format: "json",
        env: { WEBHOOK_SECRET: SECRET },
        prepare: (site) => (site.entries = [entry(1, 2)]),
      });
    });
    after(() => world?.close());

    it("sends the entry the deploy published", async () => {
      assert.ok(world);
      await world.readAt(0);
      const fresh = entry(2, 0);
      world.site.entries = [fresh, ...world.site.entries];
      const body = JSON.stringify({ deployed: true });
      const answer = await sendWebhook(world.server.url, "/syndicate/webhook", body, {
        "x-hub-signature-256": hubSignature256(body),
      });
      // The entry recorded wakes the scheduler too: whichever run takes the lease first sends it,
      // and a webhook arriving during a run is answered 409 as always (docs/webhooks.md).
      if (answer.status === 200) {
        const results = answer.body.results as PostResult[];
        assert.deepEqual(
          results.map((result) => [result.url, result.status]),
          [[fresh.url, "syndicated"]],
        );
      } else assert.equal(answer.status, 409, JSON.stringify(answer.body));
      await eventually("the new entry is sent", async () =>
        world?.target.sandbox.statuses.length === 1 ? true : undefined,
      );
      assert.equal(world.feed.parses, 2, "read at once, without a poll");
      assert.equal(world.target.sandbox.statuses.length, 1);
    });
  });
}
