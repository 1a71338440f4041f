// Decision 0054, over real HTTP: a site on 127.0.0.1 whose home page names its Atom feed in
// <link rel="alternate"> (and a WebSub hub), a sandbox Mastodon, and possekit with no feed in its
// configuration but one of another site (shown read-only). The owner pastes the home page on the
// Feeds page, sees what was found, ticks the target and adds it: the first read sends nothing and
// says so; a new entry goes out once, on the scheduler's own turn, with no restart. Changing it
// takes effect at once; removing it unsubscribes it from its hub, which is never asked again.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EndpointSyndicate } from "../../src/plugin/endpoint-syndicate.ts";
import { closeAll, startTarget, type Target } from "../endpoint/endpoint-server.ts";
import { TestClock } from "../helpers/clock.ts";
import { engines } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { FeedSite, type SiteEntry } from "../sources/feeds/feed-site.ts";
import { TestHub } from "../sources/feeds/test-hub.ts";
import { feedsForm, followFlash, homePage, pageFeedRows } from "./feeds-page-kit.ts";

const day = (n: number) => new Date(Date.UTC(2026, 2, n, 9)).toISOString();
const archive: SiteEntry[] = [2, 1].map((n) => ({
  id: `tag:blog.example,2026:${n}`,
  url: `https://blog.example/2026/03/post-${n}/`,
  title: `Old post ${n}`,
  content: `<p>Written on day ${n}.</p>`,
  published: day(n),
}));

for (const engine of engines)
  describe(`the Feeds page adds a feed from its home page (${engine.name})`, () => {
    const hub = new TestHub();
    const clock = new TestClock(Date.now());
    let site: FeedSite;
    let configured: FeedSite;
    let target: Target;
    let plugin: EndpointSyndicate;
    let server: TestServer;
    let session: { cookie: string; csrf: string };
    let feedUrl: string;
    const post = (
      path: string,
      fields: Record<string, string | string[]>,
      headers?: Record<string, string>,
    ) => feedsForm(server.url, session, path, fields, headers);

    before(async () => {
      await hub.start();
      site = await new FeedSite("atom").start();
      site.entries = [...archive];
      site.hub = hub.url;
      feedUrl = `${site.url}/feed`;
      site.answers.set("/", homePage(feedUrl));
      site.answers.set("/about", (_request, response) => {
        response
          .writeHead(200, { "content-type": "text/html" })
          .end("<!doctype html><title>About</title><p>Hi.</p>");
      });
      configured = await new FeedSite("rss").start();
      target = await startTarget();
      plugin = new EndpointSyndicate(
        {
          schedule: { enabled: true, whenLive: false },
          targets: { checkAtStart: false },
          retry: { baseMs: 100, maxMs: 400 },
          feeds: [{ url: `${configured.url}/feed`, targets: [target.uid], pollSeconds: 3600 }],
        },
        { env: {}, now: clock.now },
      );
      server = await startTestServer({
        engine,
        config: { plugins: [], fetch: { allowPrivate: true } },
        plugins: [target.syndicator(), plugin],
      });
      session = await server.signIn();
    });
    after(async () => {
      await server?.close();
      await closeAll(site, configured, target, hub.server);
    });

    it("shows what the home page names: the feed's format, title, newest entries and its hub", async () => {
      const answer = await post("discover", { url: `${site.url}/` });
      assert.equal(answer.status, 200);
      const html = await answer.text();
      assert.match(html, new RegExp(`data-found-feed="${feedUrl}"`));
      assert.match(html, /Atom/);
      assert.match(html, /<strong>A site<\/strong>/);
      assert.match(html, /Old post 2/);
      assert.match(html, /data-hub="yes"/);
      assert.match(html, new RegExp(`name="targets" value="${target.uid}"`), "targets as checkboxes");
      assert.match(html, /data-first-read>The first read sends nothing/);
      assert.equal((await pageFeedRows(server)).length, 0, "looking adds nothing");
      assert.equal(plugin.feeds?.feeds.length, 1, "only the configuration file's feed is read");
    });

    it("the configuration file's feed is listed as managed there, and cannot be changed or removed", async () => {
      const page = await (await feedsForm(server.url, session, "", null)).text();
      assert.match(page, new RegExp(`data-feed-url="${configured.url}/feed" data-managed="yes"`));
      assert.match(page, /managed by the configuration file/);
      const id = page.match(/id="feed-([^"]+)" class="feed" data-feed-url="[^"]+" data-managed="yes"/)?.[1];
      assert.ok(id);
      assert.equal((await post(`${id}/remove`, {})).status, 409);
      assert.equal(plugin.feeds?.feeds.length, 1);
    });

    it("adds the feed with the target ticked: its first read sends nothing, and says so", async () => {
      const answer = await post("", {
        url: feedUrl,
        targets: [target.uid],
        backfill: "",
        pollSeconds: "300",
      });
      assert.equal(answer.status, 303);
      const page = await (await followFlash(server.url, session, answer)).text();
      assert.match(page, /Its first read knows 2 entries and sent nothing/);
      assert.match(page, new RegExp(`data-feed-url="${feedUrl}" data-managed="no"`));
      assert.deepEqual(
        (await pageFeedRows(server)).map((row) => [row.key, row.targets]),
        [[feedUrl, [target.uid]]],
      );
      assert.equal(plugin.feeds?.feeds.length, 2, "read without a restart");
      assert.equal(target.sandbox.statuses.length, 0, "nothing sent");
      const verification = await hub.verification(0);
      assert.deepEqual([verification.mode, verification.status], ["subscribe", 200]);
      assert.equal(await server.host.postSource?.countAwaitingSyndication(), 0);
    });

    it("a new entry goes out once, on the scheduler's own turn", async () => {
      site.entries = [
        {
          id: "tag:blog.example,2026:3",
          url: "https://blog.example/2026/03/post-3/",
          title: "A new post",
          content: "<p>Fresh.</p>",
          published: day(3),
        },
        ...archive,
      ];
      clock.advance(300_000);
      plugin.scheduler?.nudge();
      await eventually("the new entry is sent", async () =>
        target.sandbox.statuses.length > 0 ? true : undefined,
      );
      assert.match(target.sandbox.statuses[0]?.text ?? "", /A new post/);
      clock.advance(300_000);
      plugin.scheduler?.nudge();
      const feed = plugin.feeds?.feeds.find((candidate) => candidate.key === feedUrl);
      await eventually("read again", async () => {
        const report = await feed?.report();
        return report && (report.lastFetchAt?.getTime() ?? 0) >= clock.now() ? true : undefined;
      });
      assert.equal(target.sandbox.statuses.length, 1, "sent once");
    });

    it("bad input gets a localised message and saves nothing", async () => {
      const before = await pageFeedRows(server);
      const refused = async (
        path: string,
        fields: Record<string, string | string[]>,
        status: number,
        text: RegExp,
        headers?: Record<string, string>,
      ) => {
        const answer = await post(path, fields, headers);
        const body = await answer.text();
        assert.equal(answer.status, status, body.slice(0, 300));
        assert.match(body, text);
      };
      await refused("discover", { url: `${site.url}/nowhere` }, 422, /answered with an error/);
      await refused("discover", { url: `${site.url}/about` }, 422, /No feed was found at/);
      await refused("discover", { url: `${site.url}/about` }, 422, /Auf .* wurde kein Feed gefunden/, {
        "accept-language": "de",
      });
      await refused("discover", { url: "not an address" }, 400, /n’est pas une adresse http/, {
        "accept-language": "fr",
      });
      await refused("", { url: `${site.url}/nowhere`, targets: [target.uid] }, 422, /answered with an error/);
      await refused("", { url: `${site.url}/`, targets: [target.uid] }, 422, /is a page, not a feed/);
      await refused("", { url: `${site.url}/about`, targets: [target.uid] }, 422, /No feed was found/);
      await refused("", { url: `${site.url}/feed?another`, targets: [] }, 400, /Tick at least one target/);
      await refused(
        "",
        { url: `${site.url}/feed?another`, targets: ["https://nowhere.example/@me"] },
        400,
        /is no target here/,
      );
      await refused(
        "",
        { url: `${site.url}/feed?another`, targets: [target.uid], backfill: "500" },
        400,
        /Backfill must be a whole number from 0 to 50/,
      );
      await refused("", { url: feedUrl, targets: [target.uid] }, 409, /already in the list/);
      // Forged and missing CSRF tokens: the host's check, in the reader's language.
      const forged = await feedsForm(
        server.url,
        { ...session, csrf: `${session.csrf.slice(0, -1)}x` },
        "",
        {
          url: `${site.url}/feed?another`,
          targets: [target.uid],
        },
        { "accept-language": "de" },
      );
      assert.equal(forged.status, 403);
      assert.match(await forged.text(), /Dieses Formular ist abgelaufen/);
      const missing = await fetch(`${server.url}/syndicate/feeds`, {
        method: "POST",
        headers: {
          cookie: session.cookie,
          accept: "text/html",
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ url: `${site.url}/feed?another`, targets: target.uid }),
        redirect: "manual",
      });
      assert.equal(missing.status, 403);
      // A bearer token, whatever its scope, is not the owner on the page.
      const token = await fetch(`${server.url}/syndicate/feeds`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${await server.token("create update delete")}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ url: `${site.url}/feed?another`, targets: target.uid }),
      });
      assert.equal(token.status, 403);
      assert.deepEqual(await pageFeedRows(server), before, "nothing half-saved");
      assert.equal(plugin.feeds?.feeds.length, 2);
    });

    it("a change takes effect at once; a refused change leaves the feed as it was", async () => {
      const page = await (await feedsForm(server.url, session, "", null)).text();
      const id = page.match(/id="feed-([^"]+)" class="feed" data-feed-url="[^"]+" data-managed="no"/)?.[1];
      assert.ok(id);
      const wrong = await post(id, { targets: [target.uid], pollSeconds: "5" });
      assert.equal(wrong.status, 400);
      assert.match(await wrong.text(), /Seconds between reads must be a whole number from 60 to 86400/);
      assert.equal((await pageFeedRows(server))[0]?.pollSeconds, 300);
      const saved = await post(id, { targets: [target.uid], pollSeconds: "600", categories: "posse, notes" });
      assert.equal(saved.status, 303);
      const feed = plugin.feeds?.feeds.find((candidate) => candidate.key === feedUrl);
      assert.equal(feed?.feed.pollSeconds, 600, "the running feed reads by its new options");
      assert.deepEqual(feed?.feed.categories, ["posse", "notes"]);
    });

    it("removing it unsubscribes it from its hub, which is never asked again", async () => {
      const page = await (await feedsForm(server.url, session, "", null)).text();
      const id = page.match(/id="feed-([^"]+)" class="feed" data-feed-url="[^"]+" data-managed="no"/)?.[1];
      assert.ok(id);
      const callback = hub.requests.find((request) => request.form.get("hub.mode") === "subscribe")?.form;
      assert.ok(callback);
      const count = hub.requests.length;
      const answer = await post(`${id}/remove`, {});
      assert.equal(answer.status, 303);
      const after = hub.requests.slice(count);
      assert.deepEqual(
        after.map((request) => [request.form.get("hub.mode"), request.form.get("hub.callback")]),
        [["unsubscribe", callback.get("hub.callback")]],
        "unsubscribed before the answer",
      );
      assert.equal(plugin.feeds?.feeds.length, 1);
      assert.deepEqual(await pageFeedRows(server), []);
      assert.equal(await hub.publish(callback, site.current().body), 410, "its deliveries: Gone");
      const reads = site.requests.length;
      for (let hour = 0; hour < 3; hour += 1) {
        clock.advance(3_600_000);
        plugin.scheduler?.nudge();
      }
      await eventually("the configuration file's feed is read on", async () => {
        const report = await plugin.feeds?.feeds[0]?.report();
        return (report?.lastFetchAt?.getTime() ?? 0) >= clock.now() - 3_600_000 ? true : undefined;
      });
      assert.equal(hub.requests.length, count + 1, "never renewed");
      assert.equal(site.requests.length, reads, "never read again");
    });

    it("added again, it starts over: what the site published while it was away is not sent", async () => {
      const sent = target.sandbox.statuses.length;
      site.entries = [
        {
          id: "tag:blog.example,2026:4",
          url: "https://blog.example/2026/03/post-4/",
          title: "While away",
          content: "<p>Away.</p>",
          published: day(4),
        },
        ...site.entries,
      ];
      const answer = await post("", { url: feedUrl, targets: [target.uid] });
      assert.equal(answer.status, 303);
      assert.match(
        await (await followFlash(server.url, session, answer)).text(),
        /Its first read knows 4 entries and sent nothing/,
      );
      assert.equal(await server.host.postSource?.countAwaitingSyndication(), 0, "nothing waits to be sent");
      clock.advance(300_000);
      plugin.scheduler?.nudge();
      const feed = plugin.feeds?.feeds.find((candidate) => candidate.key === feedUrl);
      await eventually("read on its turn", async () => {
        const report = await feed?.report();
        return report && (report.lastFetchAt?.getTime() ?? 0) >= clock.now() ? true : undefined;
      });
      assert.equal(target.sandbox.statuses.length, sent, "nothing sent");
    });
  });
