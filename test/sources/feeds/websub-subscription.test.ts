// Decision 0037: WebSub push, against a hub server in the test and our callback served over real
// HTTP through handleWebSubCallback, with subscriptions in the database (PGlite; PostgreSQL too with
// TEST_DATABASE_URL). Discovered from the feed → subscribed → the hub's verification answered with its
// challenge → a signed notification used, a badly signed one ignored → verifications we did not ask
// for refused → the lease renewed before it ends (test clock) → unsubscribed.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { after, before, beforeEach, describe, it } from "node:test";
import { listen, type RunningServer, readBody } from "../../../dev/sandbox/http-kit.ts";
import type { Database } from "../../../src/contract/database.ts";
import { migrate } from "../../../src/server/database/migrate.ts";
import { fetchFeed } from "../../../src/sources/feeds/http/fetch-feed.ts";
import {
  handleWebSubCallback,
  type WebSubCallbackEvent,
} from "../../../src/sources/feeds/http/websub/callback.ts";
import { discoverWebSub } from "../../../src/sources/feeds/http/websub/hub-discovery.ts";
import { webSubMigrations } from "../../../src/sources/feeds/http/websub/migrations.ts";
import { SqlWebSubSubscriptionStore } from "../../../src/sources/feeds/http/websub/sql-subscription-store.ts";
import { WebSubSubscriber } from "../../../src/sources/feeds/http/websub/subscriber.ts";
import { TestClock } from "../../helpers/clock.ts";
import { engines } from "../../helpers/databases.ts";
import { type HubRequest, TestHub } from "./test-hub.ts";

for (const engine of engines) {
  describe(`WebSub subscriber (${engine.name})`, () => {
    let database: Database;
    let store: SqlWebSubSubscriptionStore;
    let hub: TestHub;
    let site: RunningServer;
    let callbacks: RunningServer;
    let clock: TestClock;
    let events: WebSubCallbackEvent[];
    let subscriber: WebSubSubscriber;

    const feedXml = () => `<?xml version="1.0"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Example</title>
  <link rel="hub" href="${hub.url}"/>
  <link rel="self" href="${site.url}/feed.xml"/>
  <entry><link rel="self" href="${site.url}/not-the-feed"/></entry>
</feed>`;

    before(async () => {
      database = await engine.open();
      await migrate(database, webSubMigrations);
      store = new SqlWebSubSubscriptionStore(database);
      hub = new TestHub();
      await hub.start();
      site = await listen((_request, response) => {
        response.writeHead(200, { "content-type": "application/atom+xml" }).end(feedXml());
      });
      // Our callback route, as the feed source mounts it: raw body in, handler's answer out.
      callbacks = await listen(async (request, response) => {
        const url = new URL(request.url ?? "/", "http://x");
        const { response: answer, event } = await handleWebSubCallback(
          {
            method: request.method ?? "GET",
            subscriptionId: url.pathname.split("/").pop() ?? "",
            query: Object.fromEntries(url.searchParams),
            headers: request.headers,
            readBody: () => readBody(request, 6 * 1024 * 1024),
          },
          { store, now: () => clock.now() },
        );
        if (event) events.push(event);
        response.writeHead(answer.status, answer.headers).end(answer.body);
        // What the route leaves unread (an unknown id, an ended subscription) is not read here either.
        if (!request.readableEnded) request.resume();
      });
    });
    after(async () => {
      await Promise.all([hub.server.close(), site.close(), callbacks.close()]);
      await database.close();
    });
    beforeEach(() => {
      clock = new TestClock();
      events = [];
      hub.behaviour = "verify";
      subscriber = new WebSubSubscriber({
        store,
        policy: { allowPrivate: true },
        callbackUrl: (id) => `${callbacks.url}/websub/${id}`,
        now: () => clock.now(),
      });
    });

    /** Fetches the feed, discovers its hub and subscribes; resolves once the hub has verified. */
    async function subscribeFromFeed(feedKey: string) {
      const fetched = await fetchFeed({ url: `${site.url}/feed.xml` }, { policy: { allowPrivate: true } });
      assert.equal(fetched.kind, "fetched");
      if (fetched.kind !== "fetched") throw new Error("unreachable");
      const { hubs, self } = discoverWebSub(fetched);
      assert.deepEqual(hubs, [hub.url]);
      assert.equal(self, `${site.url}/feed.xml`);
      const before = hub.verifications.length;
      const outcome = await subscriber.subscribe(feedKey, hubs[0] ?? "", self);
      const verification = await hub.verification(before);
      return { outcome, verification, request: hub.requests.at(-1) as HubRequest };
    }

    it("subscribes, answers the verification with the challenge; a hub on plain http gets no secret", async () => {
      const { outcome, verification, request } = await subscribeFromFeed("feed-1");
      assert.equal(outcome.accepted, true);
      assert.equal(request.form.get("hub.mode"), "subscribe");
      assert.equal(request.form.get("hub.topic"), `${site.url}/feed.xml`);
      assert.equal(request.form.get("hub.lease_seconds"), "864000");
      assert.ok(hub.url.startsWith("http:"));
      assert.equal(request.form.has("hub.secret"), false, "no secret in the clear (WebSub 5.1)");
      assert.deepEqual(
        { mode: verification.mode, status: verification.status, body: verification.body },
        { mode: "subscribe", status: 200, body: "challenge-0" },
      );

      const stored = await store.forFeed("feed-1");
      assert.equal(stored?.state, "active");
      assert.equal(stored?.secret, null);
      assert.equal(stored?.leaseSeconds, 3600);
      assert.equal(stored?.expiresAt, clock.now() + 3600_000);
      assert.deepEqual(
        events.map((event) => event.kind),
        ["verified"],
      );

      // Without a secret there is nothing to check: the delivery is a sign to read the feed.
      const body = feedXml();
      assert.equal(await hub.publish(request.form, body, ""), 202);
      const notified = events.at(-1);
      assert.equal(notified?.kind, "notified");
      if (notified?.kind !== "notified") throw new Error("unreachable");
      assert.equal(notified.subscription.feedKey, "feed-1");
      assert.equal(notified.contentType, "application/atom+xml");
    });

    it("a subscription with a secret (an https hub) uses a signed notification and ignores a bad one", async () => {
      const secret = "s".repeat(43);
      const id = "signed-subscription";
      await store.save({
        id,
        feedKey: "feed-11",
        hub: "https://hub.example/",
        topic: `${site.url}/feed.xml`,
        secret,
        state: "active",
        requestedAt: clock.now(),
        leaseSeconds: 3600,
        expiresAt: clock.now() + 3600_000,
        renewAt: clock.now() + 3540_000,
        lastError: null,
      });
      const form = new URLSearchParams({
        "hub.callback": `${callbacks.url}/websub/${id}`,
        "hub.secret": secret,
      });
      const body = feedXml();
      assert.equal(await hub.publish(form, body), 202);
      const notified = events.at(-1);
      assert.equal(notified?.kind, "notified");
      if (notified?.kind !== "notified") throw new Error("unreachable");
      assert.equal(notified.subscription.feedKey, "feed-11");
      assert.equal(Buffer.from(notified.body).toString(), body);

      for (const algorithm of ["sha1", "sha384", "sha512"]) {
        const signature = `${algorithm}=${createHmac(algorithm, secret).update(body).digest("hex")}`;
        assert.equal(await hub.publish(form, body, signature), 202);
        assert.equal(events.at(-1)?.kind, "notified", algorithm);
      }

      const forged = `sha256=${createHmac("sha256", "not-the-secret").update(body).digest("hex")}`;
      const tampered = `sha256=${createHmac("sha256", secret).update(`${body} `).digest("hex")}`;
      for (const [signature, why] of [
        [forged, "another secret"],
        [tampered, "another body"],
        ["", "no signature"],
        [`md5=${"0".repeat(32)}`, "an unknown method"],
        [`${createHmac("sha256", secret).update(body).digest("hex")}`, "no method"],
      ] as const) {
        const count = events.length;
        assert.equal(await hub.publish(form, body, signature), 202, `${why}: still 2xx`);
        assert.equal(events.length, count + 1);
        assert.equal(events.at(-1)?.kind, "ignored", why);
      }
    });

    it("refuses a verification it did not ask for: another topic, an unknown id, an unsubscribe", async () => {
      const { request } = await subscribeFromFeed("feed-2");
      const callback = request.form.get("hub.callback") ?? "";
      const verify = async (base: string, params: Record<string, string>) => {
        const url = new URL(base);
        for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
        const answer = await fetch(url);
        return { status: answer.status, body: await answer.text() };
      };
      const topic = `${site.url}/feed.xml`;
      for (const [base, params, why] of [
        [callback, { "hub.mode": "subscribe", "hub.topic": `${site.url}/other.xml` }, "another topic"],
        [`${callbacks.url}/websub/unknown-id`, { "hub.mode": "subscribe", "hub.topic": topic }, "unknown id"],
        [callback, { "hub.mode": "unsubscribe", "hub.topic": topic }, "an unsubscribe we never asked"],
        [callback, { "hub.mode": "subscribe", "hub.topic": topic }, "a second verification, none pending"],
      ] as const) {
        const answer = await verify(base, { ...params, "hub.challenge": "evil", "hub.lease_seconds": "60" });
        assert.equal(answer.status, 404, why);
        assert.notEqual(answer.body, "evil", why);
      }
      const stored = await store.forFeed("feed-2");
      assert.equal(stored?.state, "active");
      assert.equal(stored?.leaseSeconds, 3600, "a refused verification changed nothing");
    });

    it("while a request is pending, only its own topic's verification is answered", async () => {
      hub.behaviour = "silent";
      const topic = `${site.url}/feed.xml`;
      const outcome = await subscriber.subscribe("feed-10", hub.url, topic);
      assert.equal(outcome.subscription.state, "pending");
      const callback = new URL(hub.requests.at(-1)?.form.get("hub.callback") ?? "");
      const verify = async (params: Record<string, string>) => {
        const url = new URL(callback);
        for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
        const answer = await fetch(url);
        return { status: answer.status, body: await answer.text() };
      };
      const other = {
        "hub.mode": "subscribe",
        "hub.topic": `${site.url}/other.xml`,
        "hub.challenge": "evil",
      };
      assert.equal((await verify(other)).status, 404);
      assert.equal((await verify({ ...other, "hub.topic": topic, "hub.mode": "unsubscribe" })).status, 404);
      assert.equal((await verify({ ...other, "hub.topic": topic, "hub.challenge": "" })).status, 404);
      assert.equal((await store.forFeed("feed-10"))?.state, "pending");
      const right = await verify({
        ...other,
        "hub.topic": topic,
        "hub.challenge": "fine",
        "hub.lease_seconds": "600",
      });
      assert.deepEqual(right, { status: 200, body: "fine" });
      assert.equal((await store.forFeed("feed-10"))?.leaseSeconds, 600);
    });

    it("renews the lease before it ends (test clock, no waiting)", async () => {
      await subscribeFromFeed("feed-3");
      const first = await store.forFeed("feed-3");
      assert.ok(first?.renewAt && first.expiresAt);
      assert.ok(first.renewAt < first.expiresAt);
      const requestsBefore = hub.requests.length;

      clock.advance(first.renewAt - clock.now() - 1);
      // Other tests' shorter leases may be due; this one is not.
      const verificationsAtStart = hub.verifications.length;
      const early = await subscriber.renewDue();
      assert.deepEqual(
        early.filter((outcome) => outcome.subscription.feedKey === "feed-3"),
        [],
        "nothing due a millisecond early",
      );
      assert.equal(hub.requests.length, requestsBefore + early.length);
      if (early.length > 0) await hub.verification(verificationsAtStart + early.length - 1);

      clock.advance(1);
      const verificationsBefore = hub.verifications.length;
      const renewals = await subscriber.renewDue();
      // Every subscription of this file is due by now; the hub verifies each renewal.
      await hub.verification(verificationsBefore + renewals.length - 1);
      const renewal = hub.verifications
        .slice(verificationsBefore)
        .find((verification) => verification.callback.endsWith(`/${first.id}`));
      assert.ok(clock.now() < first.expiresAt, "the renewal went out before the lease ended");
      assert.deepEqual(
        renewals
          .filter((outcome) => outcome.subscription.feedKey === "feed-3")
          .map((outcome) => outcome.accepted),
        [true],
      );
      const sent = hub.requests
        .slice(requestsBefore)
        .map((request) => request.form)
        .find((form) => form.get("hub.callback") === `${callbacks.url}/websub/${first.id}`);
      assert.ok(sent, "the renewal uses the same callback");
      assert.equal(sent.get("hub.mode"), "subscribe");
      assert.equal(sent.get("hub.topic"), first.topic);
      assert.equal(renewal?.status, 200);
      const renewed = await store.forFeed("feed-3");
      assert.equal(renewed?.state, "active");
      assert.equal(renewed?.expiresAt, clock.now() + 3600_000);
      assert.ok((renewed?.renewAt ?? 0) > first.renewAt);
    });

    it("a subscription verified before the hub even answered the request is kept", async () => {
      hub.behaviour = "verify-first";
      const { outcome, verification } = await subscribeFromFeed("feed-4");
      assert.equal(verification.status, 200);
      assert.equal(outcome.subscription.state, "active");
      assert.equal((await store.forFeed("feed-4"))?.state, "active");
    });

    it("subscribing again to the same hub and topic sends nothing", async () => {
      await subscribeFromFeed("feed-5");
      const count = hub.requests.length;
      const again = await subscriber.subscribe("feed-5", hub.url, `${site.url}/feed.xml`);
      assert.equal(again.detail, "already subscribed");
      assert.equal(hub.requests.length, count);
    });

    it("a hub's denial and a refused request are stored with the reason", async () => {
      hub.behaviour = "deny";
      const { verification } = await subscribeFromFeed("feed-6");
      assert.equal(verification.status, 200);
      const denied = await store.forFeed("feed-6");
      assert.equal(denied?.state, "denied");
      assert.equal(denied?.lastError, "no pushing for you");

      hub.behaviour = "refuse";
      const refused = await subscriber.subscribe("feed-7", hub.url, `${site.url}/feed.xml`);
      assert.equal(refused.accepted, false);
      assert.equal(refused.subscription.state, "denied");
      assert.match(refused.subscription.lastError ?? "", /400: topic not served here/);
    });

    it("a hub that answers 307, then 308, gets the request again at the new location, and verifies it", async () => {
      hub.redirects = [
        { status: 307, location: "/shard-1" },
        { status: 308, location: `${hub.server.url}/shard-2` },
      ];
      const before = hub.verifications.length;
      const outcome = await subscriber.subscribe("feed-12", hub.url, `${site.url}/feed.xml`);
      assert.equal(outcome.accepted, true, outcome.detail);
      const verification = await hub.verification(before);
      const sent = hub.requests.slice(-3);
      assert.deepEqual(
        sent.map((request) => request.path),
        ["/hub", "/shard-1", "/shard-2"],
      );
      for (const request of sent) {
        assert.equal(request.form.get("hub.mode"), "subscribe");
        assert.equal(request.form.get("hub.topic"), `${site.url}/feed.xml`);
        assert.equal(request.form.get("hub.callback"), sent[0]?.form.get("hub.callback"));
      }
      assert.equal(verification.status, 200);
      assert.equal((await store.forFeed("feed-12"))?.state, "active");
      assert.equal(hub.redirects.length, 0);
    });

    it("301, 302 and 303 are refusals, and a hub that redirects on and on is given up on", async () => {
      for (const [index, status] of [301, 302, 303].entries()) {
        hub.redirects = [{ status, location: "/elsewhere" }];
        const count = hub.requests.length;
        const outcome = await subscriber.subscribe(`feed-13-${index}`, hub.url, `${site.url}/feed.xml`);
        assert.equal(outcome.accepted, false, `${status}`);
        assert.equal(outcome.subscription.state, "denied");
        assert.match(outcome.detail, new RegExp(`the hub answered ${status}`));
        assert.equal(hub.requests.length, count + 1, `${status} is not followed`);
      }
      hub.redirects = Array.from({ length: 10 }, (_, hop) => ({ status: 307, location: `/hop-${hop}` }));
      const count = hub.requests.length;
      const looping = await subscriber.subscribe("feed-14", hub.url, `${site.url}/feed.xml`);
      assert.equal(looping.accepted, false);
      assert.match(looping.detail, /more than 3 times/);
      assert.equal(hub.requests.length, count + 4, "the request and 3 redirects, no more");
      hub.redirects = [];
    });

    it("each hop of a redirect is held to the outgoing-fetch rules", async () => {
      // The first hop is the user's own site (allowed on any address); the hub sends the request on
      // to another path of that private address, which is not under the site: refused, not sent.
      const guarded = new WebSubSubscriber({
        store,
        policy: { ownSite: `${hub.server.url}/hub/` },
        callbackUrl: (id) => `${callbacks.url}/websub/${id}`,
        now: () => clock.now(),
      });
      hub.redirects = [{ status: 307, location: "/private-elsewhere" }];
      const count = hub.requests.length;
      const outcome = await guarded.subscribe("feed-15", hub.url, `${site.url}/feed.xml`);
      assert.equal(outcome.accepted, false);
      assert.match(outcome.detail, /private-elsewhere: refused: private address/);
      assert.equal(hub.requests.length, count + 1, "the second hop was never sent");
    });

    it("a hub on a private address is refused without fetch.allowPrivate", async () => {
      const strict = new WebSubSubscriber({
        store,
        policy: {},
        callbackUrl: (id) => `${callbacks.url}/websub/${id}`,
        now: () => clock.now(),
      });
      const count = hub.requests.length;
      const outcome = await strict.subscribe("feed-8", hub.url, `${site.url}/feed.xml`);
      assert.equal(outcome.accepted, false);
      assert.match(outcome.detail, /refused: private address/);
      assert.equal(hub.requests.length, count);
    });

    it("unsubscribes: the hub verifies, and later deliveries get 410", async () => {
      const { request } = await subscribeFromFeed("feed-9");
      const before = hub.verifications.length;
      await subscriber.unsubscribe("feed-9");
      assert.equal(hub.requests.at(-1)?.form.get("hub.mode"), "unsubscribe");
      const verification = await hub.verification(before);
      assert.equal(verification.mode, "unsubscribe");
      assert.equal(verification.status, 200);
      assert.equal(verification.body, `challenge-${before}`);
      assert.equal(await store.forFeed("feed-9"), undefined);
      assert.equal(await hub.publish(request.form, feedXml()), 410);
    });
  });
}
