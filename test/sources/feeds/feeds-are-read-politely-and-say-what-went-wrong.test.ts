// Decisions 0035, 0036 and 0037: a feed is read politely (a 304 parses nothing; a permanent move is stored;
// 410 stops it and says so) and whatever the site does wrong is a visible reason, never a crash
// nor a flood: malformed XML, an HTML error page, entries without id or date, duplicate ids, an id
// changed on every entry, an old entry that turns up late. `backfill` and `categories` choose what
// the first and later reads send.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { FeedSources } from "../../../src/sources/feeds/feed-sources.ts";
import { engines } from "../../helpers/databases.ts";
import { healthOf } from "../../helpers/health.ts";
import type { SiteEntry } from "./feed-site.ts";
import { eventually, type FeedWorld, startFeedWorld } from "./feed-world.ts";

const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/feeds/broken/${name}`, import.meta.url), "utf8");
// Dates near the test clock's start (the real time): an entry without a date is dated by when it
// is first seen, and counts as the newest known.
const start = Date.now() - 30 * 86_400_000;
const day = (n: number) => new Date(start + n * 86_400_000).toISOString();
const entry = (n: number, extra: Partial<SiteEntry> = {}): SiteEntry => ({
  id: `tag:blog.example,2026:${n}`,
  url: `https://blog.example/2026/03/post-${n}/`,
  title: `Post ${n}`,
  content: `<p>Written on day ${n}.</p>`,
  published: day(n),
  ...extra,
});
const archive = () => [entry(10), entry(9), entry(8), entry(7)];

/** Reads the feed at once, as a push does, and answers its report. */
async function readNow(world: FeedWorld) {
  await world.feed.fetchNow();
  return world.feed.report();
}

/** Waits until `count` copies were made, then asserts no more: nothing else waits to be sent. */
async function sentExactly(world: FeedWorld, count: number): Promise<string[]> {
  await eventually(`${count} copies are made`, async () =>
    world.target.sandbox.statuses.length >= count && (await world.awaiting()) === 0 ? true : undefined,
  );
  assert.equal(world.target.sandbox.statuses.length, count);
  return world.target.sandbox.statuses.map((status) => status.text);
}

for (const engine of engines) {
  describe(`a feed is read politely (${engine.name})`, () => {
    let world: FeedWorld | undefined;
    before(async () => {
      world = await startFeedWorld(engine, {
        format: "rss",
        feed: { pollSeconds: 600 },
        prepare: (site) => (site.entries = archive()),
      });
    });
    after(() => world?.close());

    it("reads the feed at its own interval, and an instance sharing the database takes no extra turn", async () => {
      assert.ok(world);
      await world.readAt(0);
      const asked = world.site.requests.length;
      world.clock.advance(300_000);
      await world.feeds.pollIfDue();
      assert.equal(world.site.requests.length, asked, "not before pollSeconds (600 s)");
      const database = world.server.host.database;
      const known = world.server.host.knownPosts;
      assert.ok(database && known);
      const sameFeed = world.plugin.options.feeds;
      const otherInstance = new FeedSources({
        feeds: sameFeed,
        database,
        known,
        logger: world.server.host.logger,
        policy: { allowPrivate: true },
        now: world.clock.now,
      });
      await otherInstance.pollIfDue();
      assert.equal(world.site.requests.length, asked, "the row says it is not due");
      world.clock.advance(300_000);
      await otherInstance.pollIfDue();
      assert.equal(
        world.site.requests.length,
        asked + 1,
        "due after 600 s, for whichever instance comes first",
      );
      world.scheduler.nudge();
      await world.feeds.pollIfDue();
      assert.equal(world.site.requests.length, asked + 1, "and read once");
    });

    it("sends If-None-Match, and a 304 parses nothing", async () => {
      assert.ok(world);
      const parses = world.feed.parses;
      await world.nextRead();
      const last = world.site.requests.at(-1);
      assert.equal(last?.ifNoneMatch, world.site.current().etag);
      assert.equal(last?.status, 304);
      assert.equal(world.feed.parses, parses, "nothing parsed");
    });

    it("stores the new URL of a feed moved for good (301), and reads it there next", async () => {
      assert.ok(world);
      const site = world.site;
      site.feedPaths.add("/moved-feed");
      site.answers.set("/feed", (_request, response) => {
        response.writeHead(301, { location: "/moved-feed" }).end();
      });
      const moved = await world.nextRead();
      assert.equal(moved.url, `${site.url}/moved-feed`);
      assert.equal(moved.state, "ok");
      const before = site.requests.length;
      await world.nextRead();
      assert.deepEqual(
        site.requests.slice(before).map((request) => request.path),
        ["/moved-feed"],
        "read at its new place, the old one not asked",
      );
    });

    it("stops a feed that is gone (410) and says so on /health", async () => {
      assert.ok(world);
      const site = world.site;
      site.answers.set("/moved-feed", (_request, response) => {
        response.writeHead(410, { "content-type": "text/plain" }).end("gone");
      });
      const gone = await world.nextRead();
      assert.equal(gone.state, "stopped");
      assert.match(gone.lastError ?? "", /410|gone/i);
      assert.equal(gone.nextFetchAt, null);
      assert.equal(world.feed.nextFetchAt(), null, "the scheduler is never woken for it");
      const health = (await healthOf(world.server)) as Record<string, unknown>;
      assert.match(JSON.stringify(health), /"state":"stopped"/);
      const asked = site.requests.length;
      world.clock.advance(3600_000);
      await world.feeds.pollIfDue();
      assert.equal(site.requests.length, asked, "never asked again");
      // A push (a WebSub notification, a deploy webhook) reads a feed at once, due or not: never a
      // stopped one.
      const pushed = await readNow(world);
      assert.equal(site.requests.length, asked, "a push does not read a stopped feed");
      assert.equal(pushed.state, "stopped");
    });
  });

  describe(`a feed that goes wrong shows why, and floods nothing (${engine.name})`, () => {
    let world: FeedWorld | undefined;
    before(async () => {
      world = await startFeedWorld(engine, { format: "rss", prepare: (site) => (site.entries = archive()) });
    });
    after(() => world?.close());

    // Read by a push (as a WebSub notification or a deploy webhook reads them), the test clock
    // standing still: an entry without a date is dated by when it is first seen, and a post dated
    // after the database's present (the test clock run ahead) would wait for its time.
    it("a malformed feed and an HTML error page are errors with a reason; the feed recovers", async () => {
      assert.ok(world);
      await world.readAt(0);
      world.site.rawBody = { body: fixture("truncated.xml"), contentType: "application/rss+xml" };
      const malformed = await readNow(world);
      assert.equal(malformed.state, "failing");
      assert.match(malformed.lastError ?? "", /cut off|malformed|not well-formed|XML/i);
      world.site.rawBody = { body: fixture("nginx-502.html"), contentType: "text/html" };
      const errorPage = await readNow(world);
      assert.match(errorPage.lastError ?? "", /error page|502|Bad Gateway/i);
      world.site.rawBody = undefined;
      const recovered = await readNow(world);
      assert.equal(recovered.state, "ok");
      assert.equal(recovered.lastError, null);
      assert.equal(world.target.sandbox.statuses.length, 0);
      assert.equal(await world.awaiting(), 0);
    });

    it("entries without id or date, and duplicate ids, are each read once, with a note", async () => {
      assert.ok(world);
      const site = world.site;
      const noId = entry(11, { id: undefined, title: "No id" });
      const noDate = entry(12, { published: undefined, title: "No date" });
      const twin = entry(13, { title: "Twin" });
      site.entries = [
        twin,
        { ...twin, url: "https://blog.example/2026/03/twin-again/" },
        noDate,
        noId,
        ...archive(),
      ];
      const read = await readNow(world);
      assert.equal(read.state, "ok");
      assert.ok(
        read.notes.some((note) => /Two entries have the id/.test(note)),
        read.notes.join("\n"),
      );
      assert.ok(
        read.notes.some((note) => /"No date" has no date/.test(note)),
        read.notes.join("\n"),
      );
      const texts = await sentExactly(world, 3);
      assert.deepEqual(texts.map((text) => text.match(/No id|No date|Twin/)?.[0]).sort(), [
        "No date",
        "No id",
        "Twin",
      ]);
      await readNow(world);
      await readNow(world);
      assert.equal(world.target.sandbox.statuses.length, 3, "none of them again");
    });

    it("an entry is the same post by its id, else its link: edited, never sent again", async () => {
      assert.ok(world);
      const site = world.site;
      const PUT = /^\/api\/v1\/statuses\/\d+$/;
      const edits = world.requests("PUT", PUT);
      const entries = site.entries;
      const moved = entries.map((item) => {
        if (item.title === "Twin") return { ...item, url: "https://blog.example/2026/twin-moved/" };
        if (item.title === "No id")
          return { ...item, title: "No id, edited", content: "<p>No id, edited.</p>" };
        return item;
      });
      site.entries = moved;
      const read = await readNow(world);
      assert.equal(read.state, "ok", read.lastError ?? "");
      await eventually("the two copies are edited", async () =>
        world && world.requests("PUT", PUT) === edits + 2 ? true : undefined,
      );
      assert.equal(world.target.sandbox.statuses.length, 3, "no new copy");
      const urls = (await world.posts()).map((post) => post.url);
      assert.ok(urls.includes("https://blog.example/2026/twin-moved/"), "the post took its new link");
    });

    it("an entry dated more than 3 days before the newest known is recorded, not sent", async () => {
      assert.ok(world);
      const late = entry(2, { title: "Found in the archive" });
      const recent = entry(30, { title: "Written today" });
      world.site.entries = [recent, late, ...world.site.entries];
      const read = await readNow(world);
      assert.ok(
        read.notes.some((note) => /more than 3 days before/.test(note)),
        read.notes.join("\n"),
      );
      await sentExactly(world, 4);
      assert.doesNotMatch(world.target.sandbox.statuses.at(-1)?.text ?? "", /Found in the archive/);
      assert.ok(
        (await world.posts()).some((post) => post.url === late.url),
        "known all the same",
      );
    });

    it("an id changed on most entries at once sends nothing, says why, and waits for the user", async () => {
      assert.ok(world);
      const site = world.site;
      const before = site.entries;
      const renamed = before.map((item) => (item.id ? { ...item, id: `urn:new-cms:${item.id}` } : item));
      const brandNew = entry(14, { id: "urn:new-cms:14", title: "Written after the move" });
      site.entries = [brandNew, ...renamed];
      const held = await readNow(world);
      assert.equal(held.state, "held");
      assert.match(held.lastError ?? "", /changed the id of \d+ of its \d+ entries/);
      assert.equal(await world.awaiting(), 0, "nothing recorded to send");
      assert.ok(!(await world.posts()).some((post) => post.url === brandNew.url), "nothing recorded at all");
      const stillHeld = await readNow(world);
      assert.equal(stillHeld.state, "held", "waiting, read after read");

      await world.feed.acceptCurrentEntries();
      const accepted = await world.feed.report();
      assert.equal(accepted.state, "ok");
      assert.ok((await world.posts()).some((post) => post.url === brandNew.url));
      await readNow(world);
      assert.equal(await world.awaiting(), 0);
      assert.equal(world.target.sandbox.statuses.length, 4, "no copy for any of it");
    });
  });

  describe(`the first read of a feed (${engine.name})`, () => {
    let world: FeedWorld | undefined;
    before(async () => {
      world = await startFeedWorld(engine, {
        format: "json",
        feed: { backfill: 2, categories: ["Posse"] },
        prepare: (site) =>
          (site.entries = [
            entry(10, { categories: ["posse"] }),
            entry(9, { categories: ["other"] }),
            entry(8, { categories: ["posse"] }),
            entry(7, { categories: ["posse"] }),
          ]),
      });
    });
    after(() => world?.close());

    it("sends only the newest `backfill` entries, and only those in `categories`", async () => {
      assert.ok(world);
      await world.readAt(0);
      const texts = await sentExactly(world, 1);
      assert.match(texts[0] ?? "", /Post 10/, "post 9 is among the newest two but not in the categories");
      world.site.entries = [
        entry(12, { categories: ["other"] }),
        entry(11, { categories: ["POSSE"] }),
        ...world.site.entries,
      ];
      await world.nextRead();
      const later = await sentExactly(world, 2);
      assert.match(later[1] ?? "", /Post 11/);
    });
  });
}
