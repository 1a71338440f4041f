// The public WebSub callback of a running server, against a hub on 127.0.0.1:
// - an id that names no subscription is refused (410 to a delivery, 404 to a verification: WebSub
//   5.3.1 and 7) before any of the body is read: a client that declares 5 MB and sends none still
//   gets its answer, and the connection is closed;
// - refusals count against the client's address (the public routes' limit), and past the limit
//   the stranger gets 429, while the hub's deliveries from that same address still get 202: only
//   refused requests are counted, so guessed ids cannot lock the real hub out;
// - a burst of 20 replayed deliveries for one feed reads it at most twice (one read under way, one
//   after it).
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { after, before, describe, it } from "node:test";
import { EndpointSyndicate } from "../../../src/plugin/endpoint-syndicate.ts";
import { PUSH_SPACING_MS } from "../../../src/sources/feeds/feed-sources.ts";
import {
  closeAll,
  type EndpointServer,
  startEndpointServer,
  startTarget,
  type Target,
} from "../../endpoint/endpoint-server.ts";
import { engines } from "../../helpers/databases.ts";
import { looks, ServerClock } from "../../schedule/scheduled-server.ts";
import { FeedSite } from "./feed-site.ts";
import { TestHub } from "./test-hub.ts";

const PUBLIC_LIMIT = 5;
/** Only a guard against a hang: an answer that waits for a body never sent never comes. */
const HANG_GUARD_MS = 20_000;

/** POSTs headers that announce `declaredBytes` and sends none of them; resolves with the answer. */
function postWithoutBody(url: string, declaredBytes: number) {
  return new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
    const outgoing = httpRequest(url, {
      method: "POST",
      headers: { "content-type": "application/atom+xml", "content-length": String(declaredBytes) },
      signal: AbortSignal.timeout(HANG_GUARD_MS),
    });
    outgoing.on("response", (response) => {
      response.resume();
      resolve({ status: response.statusCode ?? 0, connection: response.headers.connection });
      outgoing.destroy();
    });
    outgoing.on("error", reject);
    outgoing.flushHeaders();
  });
}

for (const engine of engines) {
  describe(`the WebSub callback of a running server (${engine.name})`, () => {
    const hub = new TestHub();
    let site: FeedSite;
    let target: Target;
    let app: EndpointServer;
    let subscription: URLSearchParams;
    const clock = new ServerClock();

    before(async () => {
      await hub.start();
      site = await new FeedSite("atom").start();
      site.hub = hub.url;
      target = await startTarget();
      app = await startEndpointServer({
        engine,
        targets: [target],
        clock,
        pluginOptions: {
          schedule: { enabled: true, whenLive: false },
          targets: { checkAtStart: false },
          feeds: [{ url: `${site.url}/feed`, targets: [target.uid], pollSeconds: 3600 }],
        },
        config: {
          fetch: { allowPrivate: true },
          application: { rateLimit: { public: PUBLIC_LIMIT, windowMs: 3_600_000 } },
        },
      });
      assert.equal((await hub.verification(0)).status, 200);
      subscription = hub.requests[0]?.form ?? new URLSearchParams();
    });
    after(async () => {
      await app?.close();
      await closeAll(site, target, hub.server);
    });

    it("refuses an unknown id before reading its body: 410 to a delivery, 404 to a verification", async () => {
      const unknown = `${app.url}/syndicate/websub/${"A".repeat(24)}`;
      const answer = await postWithoutBody(unknown, 5 * 1024 * 1024);
      assert.equal(answer.status, 410);
      assert.equal(answer.connection, "close", "the unread body is not waited for");
      const verify = await fetch(`${unknown}?hub.mode=subscribe&hub.topic=x&hub.challenge=evil`);
      assert.equal(verify.status, 404);
      assert.notEqual(await verify.text(), "evil");
      // Not even shaped like an id: refused the same way.
      const odd = await postWithoutBody(`${app.url}/syndicate/websub/${"%C3%A9".repeat(100)}`, 1024);
      assert.deepEqual(odd, { status: 410, connection: "close" });
    });

    it("rate-limits refusals per address, and the hub's deliveries from that address go on", async () => {
      const statuses: number[] = [];
      for (let guess = 0; guess < PUBLIC_LIMIT + 2; guess += 1) {
        const answer = await fetch(`${app.url}/syndicate/websub/guess-${guess}`, {
          method: "POST",
          body: "x",
        });
        await answer.arrayBuffer();
        statuses.push(answer.status);
      }
      const limited = statuses.indexOf(429);
      assert.ok(limited > 0 && limited <= PUBLIC_LIMIT, `refused, then limited: ${statuses.join(" ")}`);
      assert.ok(
        statuses.slice(0, limited).every((status) => status === 410),
        statuses.join(" "),
      );
      assert.equal(statuses.at(-1), 429);
      // The real hub shares the stranger's address (127.0.0.1): its delivery is still taken.
      assert.equal(await hub.publish(subscription, site.current().body), 202);
      const plugin = app.server.host.plugins.find(
        (p): p is EndpointSyndicate => p instanceof EndpointSyndicate,
      );
      await plugin?.feeds?.idle();
    });

    it("a burst of 20 replayed deliveries reads the feed at most twice", async () => {
      const plugin = app.server.host.plugins.find(
        (p): p is EndpointSyndicate => p instanceof EndpointSyndicate,
      );
      const feeds = plugin?.feeds;
      assert.ok(feeds && plugin.scheduler);
      // What the delivery before left owed is read first.
      await clock.advance(PUSH_SPACING_MS);
      await clock.sleeping();
      await feeds.idle();
      const readsBefore = site.requests.length;
      const body = site.current().body;
      const answers = await Promise.all(Array.from({ length: 20 }, () => hub.publish(subscription, body)));
      assert.deepEqual(new Set(answers), new Set([202]));
      await feeds.idle();
      assert.equal(site.requests.length - readsBefore, 1, "one read at once");

      await clock.advance(PUSH_SPACING_MS);
      await clock.sleeping();
      await feeds.idle();
      assert.equal(site.requests.length - readsBefore, 2, "and one after it, for what came meanwhile");
      await clock.advance(PUSH_SPACING_MS);
      await looks(plugin.scheduler);
      await feeds.idle();
      const reads = site.requests.length - readsBefore;
      assert.ok(reads <= 2, `${reads} reads of the feed for 20 deliveries`);
    });
  });
}
