// A running server keeps its WebSub subscriptions by the leases the hub grants, on a test clock
// (ServerClock: the scheduler's sleeps and the feeds' time), against a hub on 127.0.0.1:
// - a 60-second lease is renewed before it ends: the scheduler wakes at the renewal time the lease
//   sets (half of a one-minute lease), not at a fixed look every ten minutes;
// - after a restart whose configuration no longer names the feed, its subscription is ended at the
//   hub (hub.mode=unsubscribe) at the first turn, never renewed again, and the hub's deliveries to
//   it are answered 410 Gone (WebSub 7), which tells the hub to stop.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../../src/contract/database.ts";
import {
  closeAll,
  type EndpointServer,
  startEndpointServer,
  startTarget,
  type Target,
} from "../../endpoint/endpoint-server.ts";
import { engines } from "../../helpers/databases.ts";
import { until } from "../../helpers/eventually.ts";
import { looks, ServerClock, schedulerOf } from "../../schedule/scheduled-server.ts";
import { FeedSite } from "./feed-site.ts";
import { TestHub } from "./test-hub.ts";

const LEASE_SECONDS = 60;

for (const engine of engines) {
  describe(`WebSub leases and removed feeds in a running server (${engine.name})`, () => {
    let database: Database;
    const hub = new TestHub();
    let pushed: FeedSite;
    let polled: FeedSite;
    let target: Target;
    let app: EndpointServer | undefined;
    const clock = new ServerClock();

    const feed = (site: FeedSite) => ({ url: `${site.url}/feed`, targets: [target.uid], pollSeconds: 3600 });
    const start = (sites: readonly FeedSite[]) =>
      startEndpointServer({
        engine,
        database,
        targets: [target],
        clock,
        pluginOptions: {
          schedule: { enabled: true, whenLive: false },
          targets: { checkAtStart: false },
          feeds: sites.map(feed),
        },
        config: { fetch: { allowPrivate: true } },
      });
    const subscribes = () => hub.requests.filter((request) => request.form.get("hub.mode") === "subscribe");

    before(async () => {
      database = await engine.open();
      hub.leaseSeconds = LEASE_SECONDS;
      hub.now = clock.now;
      await hub.start();
      pushed = await new FeedSite("atom").start();
      pushed.hub = hub.url;
      polled = await new FeedSite("rss").start();
      target = await startTarget();
    });
    after(async () => {
      await app?.close();
      await closeAll(pushed, polled, target, hub.server);
      await database.close();
    });

    it("renews a 60-second lease before it ends, when the lease says", async () => {
      app = await start([pushed, polled]);
      const verification = await hub.verification(0);
      assert.deepEqual([verification.mode, verification.status], ["subscribe", 200]);
      const grantedAt = clock.now();

      // Half of the lease: the scheduler's own timer fires, nothing nudges it.
      await clock.advance((LEASE_SECONDS * 1000) / 2);
      await clock.sleeping("the scheduler has looked and sleeps again");
      const renewal = subscribes()[1];
      assert.ok(renewal, "the lease was renewed by the scheduler's own wake-up");
      assert.equal(renewal.form.get("hub.callback"), verification.callback);
      assert.ok((renewal.at ?? Infinity) < grantedAt + LEASE_SECONDS * 1000, "before the lease ended");
      assert.equal((await hub.verification(1)).status, 200, "the renewal is verified");

      // And again, each time from the lease the hub granted last.
      const renewedAt = clock.now();
      await clock.advance((LEASE_SECONDS * 1000) / 2);
      await clock.sleeping();
      assert.ok((subscribes()[2]?.at ?? Infinity) < renewedAt + LEASE_SECONDS * 1000);
      assert.equal((await hub.verification(2)).status, 200);
    });

    it("a feed removed from the configuration is unsubscribed at the next start, never renewed, and answered 410", async () => {
      const id = hub.requests[0]?.form.get("hub.callback")?.split("/").pop();
      assert.ok(id);
      await app?.close();
      app = undefined;

      const count = hub.requests.length;
      app = await start([polled]);
      const scheduler = schedulerOf(app);
      await looks(scheduler, 1);
      // The server listens on another port now: the same subscription's callback under it.
      const callback = `${app.url}/syndicate/websub/${id}`;
      const ended = hub.requests.slice(count);
      assert.deepEqual(
        ended.map((request) => [request.form.get("hub.mode"), request.form.get("hub.callback")]),
        [["unsubscribe", callback]],
        "one unsubscribe request, for the removed feed's subscription",
      );
      const verification = await hub.verification(3);
      assert.deepEqual([verification.mode, verification.status], ["unsubscribe", 200]);

      const subscription = new URLSearchParams({ "hub.callback": callback });
      assert.equal(await hub.publish(subscription, pushed.current().body), 410, "deliveries: Gone");
      const readsBefore = pushed.requests.length;

      // Long past every renewal time and the lease: nothing more goes to the hub for it.
      for (let minute = 0; minute < 15; minute += 1) await clock.advance(60_000);
      await looks(scheduler);
      assert.equal(hub.requests.length, count + 1, "never renewed");
      assert.equal(await hub.publish(subscription, pushed.current().body), 410);
      assert.equal(pushed.requests.length, readsBefore, "the removed feed is not read");
    });

    it("the last feed removed (no feeds at all) is unsubscribed and answered 410 too", async () => {
      await app?.close();
      app = await start([pushed]);
      const count = hub.requests.length;
      const verifications = hub.verifications.length;
      // Its next read, an hour on (its interval), finds a new entry and subscribes again, under a new id.
      pushed.entries = [
        { id: "urn:new", url: "https://blog.example/new/", title: "New", content: "<p>New.</p>" },
      ];
      await clock.advance(3_600_000);
      await until("the feed is subscribed again", () => hub.verifications.length > verifications);
      const subscribed = await hub.verification(verifications);
      assert.deepEqual([subscribed.mode, subscribed.status], ["subscribe", 200]);
      const id = hub.requests.at(-1)?.form.get("hub.callback")?.split("/").pop();
      assert.ok(id && hub.requests.length > count);
      await app.close();

      app = await start([]);
      await looks(schedulerOf(app), 1);
      const callback = `${app.url}/syndicate/websub/${id}`;
      assert.deepEqual(
        [hub.requests.at(-1)?.form.get("hub.mode"), hub.requests.at(-1)?.form.get("hub.callback")],
        ["unsubscribe", callback],
      );
      const verification = await hub.verification(verifications + 1);
      assert.deepEqual([verification.mode, verification.status], ["unsubscribe", 200]);
      const subscription = new URLSearchParams({ "hub.callback": callback });
      assert.equal(await hub.publish(subscription, pushed.current().body), 410);
    });
  });
}
