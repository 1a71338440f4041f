// Decision 0040 (and decision 0036's held feed): the Syndicate page lists each configured feed with its
// state, its last and next read, the entries it knows, its last error and a "Fetch now" button that
// reads it at once and says what the read did: under htmx the Feeds section comes back with the
// outcome announced, a form without JavaScript is sent back to the page with it as a flash, an API
// client gets JSON. A feed held because most ids changed offers "Accept the new ids", which says
// first what it does; accepting sends nothing; accepting a feed that is not held is refused (409).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { feedIdOf } from "../../src/plugin/page/feed-view.ts";
import { engines } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { browser } from "../server/pages.ts";
import type { SiteEntry } from "../sources/feeds/feed-site.ts";
import { type FeedWorld, startFeedWorld } from "../sources/feeds/feed-world.ts";

const start = Date.now() - 30 * 86_400_000;
const entry = (n: number, extra: Partial<SiteEntry> = {}): SiteEntry => ({
  id: `tag:blog.example,2026:${n}`,
  url: `https://blog.example/2026/04/post-${n}/`,
  title: `Post ${n}`,
  content: `<p>Written on day ${n}.</p>`,
  published: new Date(start + n * 86_400_000).toISOString(),
  ...extra,
});

/** The Feeds section of a page (or of an htmx answer). */
function feedsSection(html: string): string {
  const start = html.indexOf('<h2 id="feeds-heading"');
  assert.ok(start >= 0, "the page has a Feeds section");
  const end = html.indexOf("</section>", start);
  return html.slice(start, end < 0 ? undefined : end);
}

const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replaceAll("&#39;", "'")
    .replaceAll("&amp;", "&")
    .replace(/\s+/g, " ");

for (const engine of engines) {
  describe(`the Feeds section: Fetch now and Accept the new ids (${engine.name})`, () => {
    let world: FeedWorld;
    let session: { cookie: string; csrf: string };
    let token: string;
    let base: string;
    before(async () => {
      world = await startFeedWorld(engine, {
        format: "atom",
        prepare: (site) => (site.entries = [entry(3), entry(2), entry(1)]),
      });
      await world.readAt(0);
      session = await world.server.signIn();
      token = await world.server.token("create update");
      base = `${world.server.url}/syndicate/feeds/${feedIdOf(world.feed.key)}`;
    });
    after(() => world?.close());

    const page = async (path = "/syndicate", language = "en") => {
      const response = await fetch(`${world.server.url}${path}`, {
        headers: browser({ cookie: session.cookie, "accept-language": language }),
      });
      assert.equal(response.status, 200);
      return response.text();
    };
    const htmx = (action: "fetch" | "accept") =>
      fetch(`${base}/${action}`, {
        method: "POST",
        headers: {
          cookie: session.cookie,
          "x-csrf-token": session.csrf,
          "hx-request": "true",
          // What the hx-sse extension adds to every htmx request of the page.
          accept: "text/html, text/event-stream",
        },
      });
    const form = (action: "fetch" | "accept") =>
      fetch(`${base}/${action}`, {
        method: "POST",
        redirect: "manual",
        headers: browser({ cookie: session.cookie, "content-type": "application/x-www-form-urlencoded" }),
        body: new URLSearchParams({ _csrf: session.csrf }),
      });
    const api = (action: "fetch" | "accept") =>
      fetch(`${base}/${action}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      });

    it("lists the feed: its URL, state, last and next read, entries known and where new entries go", async () => {
      const section = feedsSection(await page());
      const report = await world.feed.report();
      assert.ok(section.includes(`<a href="${report.url}">${report.url}</a>`), section);
      const target = world.target.syndicator().info.name;
      assert.ok(
        text(section).includes(`Entries known 3 entries New entries go to ${target} Fetch now`),
        text(section),
      );
      assert.match(text(section), / Read Last read .+ Next read .+ Entries known/);
      assert.ok(report.lastFetchAt && report.nextFetchAt);
      assert.ok(section.includes(`datetime="${report.lastFetchAt.toISOString()}"`));
      assert.ok(section.includes(`datetime="${report.nextFetchAt.toISOString()}"`));
      assert.match(section, /<button type="submit" id="fetch-[\w-]+">.*Fetch now/s);
      assert.doesNotMatch(section, /Accept the new ids/, "nothing to accept");
      // The count links to the list of the feed's entries.
      const href = /<a href="([^"]+)">3 entries<\/a>/.exec(section)?.[1]?.replaceAll("&amp;", "&");
      assert.equal(href, `/syndicate?${new URLSearchParams({ state: "all", origin: world.feed.origin })}`);
    });

    it("says it in German and in French", async () => {
      assert.match(
        text(feedsSection(await page("/syndicate", "de"))),
        /Gelesen Zuletzt gelesen .+ 3 Einträge .*Jetzt abrufen/,
      );
      assert.match(
        text(feedsSection(await page("/syndicate", "fr"))),
        /Flux .*Lu Dernière lecture .+ 3 entrées .*Lire maintenant/,
      );
    });

    it("Fetch now under htmx reads the feed at once and announces the new entry and its send", async () => {
      const asked = world.site.requests.length;
      world.site.entries = [entry(4, { title: "Written just now" }), ...world.site.entries];
      const response = await htmx("fetch");
      assert.equal(response.status, 200);
      assert.equal(world.site.requests.length, asked + 1, "read once, now, not at its turn");
      const section = await response.text();
      assert.match(
        text(section),
        /Read http:\/\/127\.0\.0\.1:\d+\/feed: 1 new entry; 1 of them goes to the feed's targets\. Show its entries/,
      );
      assert.match(section, /id="feeds-announcer"[^>]*role="status"/);
      assert.match(text(section), /4 entries/);
      // The scheduler sends it, once, with nobody clicking anything else.
      await world.readAt(0);
      await eventually("the new entry is sent", async () =>
        world.target.sandbox.statuses.length === 1 && (await world.awaiting()) === 0 ? true : undefined,
      );
      assert.match(world.target.sandbox.statuses[0]?.text ?? "", /Written just now|Written on day 4/);
    });

    it("Fetch now as a form without JavaScript: 303 back to the feed on the page, the outcome as a flash", async () => {
      const response = await form("fetch");
      assert.equal(response.status, 303);
      assert.equal(response.headers.get("location"), `/syndicate#feed-${feedIdOf(world.feed.key)}`);
      const cookie = response.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; ");
      const next = await fetch(`${world.server.url}/syndicate`, {
        headers: browser({ cookie: `${session.cookie}; ${cookie}` }),
      });
      assert.match(
        text(await next.text()),
        /Read http:\/\/127\.0\.0\.1:\d+\/feed: unchanged since the last read\./,
      );
    });

    it("Fetch now for an API client answers the feed's state and the read in JSON", async () => {
      const response = await api("fetch");
      assert.equal(response.status, 200);
      const body = (await response.json()) as {
        feed: { state: string; entries_known: number };
        read: { outcome: string; recorded: { new: number } };
      };
      assert.equal(body.feed.state, "ok");
      assert.equal(body.feed.entries_known, 4);
      assert.equal(body.read.outcome, "not-modified");
    });

    it("a feed the site broke shows its error, and Fetch now says why it could not be read", async () => {
      world.site.rawBody = {
        body: "<!doctype html><title>502 Bad Gateway</title><h1>Bad Gateway</h1>",
        contentType: "text/html",
      };
      const section = await (await htmx("fetch")).text();
      assert.match(text(section), /could not be read: /);
      assert.match(text(section), /Failing .* Last error: /);
      world.site.rawBody = undefined;
      assert.match(text(await (await htmx("fetch")).text()), /Read .+: nothing new\./);
      assert.doesNotMatch(text(feedsSection(await page())), /Last error/, "the error goes once read again");
    });

    it("a held feed (most ids changed) offers Accept, which says first what it does; accepting sends nothing", async () => {
      const sent = world.target.sandbox.statuses.length;
      world.site.entries = [
        entry(5, { id: "urn:new-cms:5", title: "Written after the move" }),
        ...world.site.entries.map((item) => ({ ...item, id: `urn:new-cms:${item.id}` })),
      ];
      await world.feed.fetchNow();
      assert.equal((await world.feed.report()).state, "held");
      const held = feedsSection(await page());
      assert.match(
        text(held),
        /Held: waiting for you .* Why it is held: The feed changed the id of 4 of its 5 entries/,
      );
      assert.match(held, /<details class="feed-accept">\s*<summary[^>]*>Accept the new ids…/);
      assert.match(text(held), /takes every entry in it as a known one, under its new id: nothing is sent/);
      assert.match(held, /<button type="submit" id="accept-[\w-]+">Accept the new ids, send nothing/);

      const response = await form("accept");
      assert.equal(response.status, 303);
      const report = await world.feed.report();
      assert.equal(report.state, "ok");
      assert.equal(report.lastError, null);
      assert.ok(
        (await world.posts()).some((post) => post.url === entry(5).url),
        "the new entry is known",
      );
      assert.equal(await world.awaiting(), 0, "and waits for nothing");
      assert.equal(world.target.sandbox.statuses.length, sent, "nothing was sent");
      assert.doesNotMatch(feedsSection(await page()), /Accept the new ids/);
    });

    it("accepting a feed that is not held is refused (409) and changes nothing", async () => {
      const response = await api("accept");
      assert.equal(response.status, 409);
      const body = (await response.json()) as { message: string; feed: { state: string } };
      assert.match(body.message, /is not held: there are no new ids to accept/);
      assert.equal(body.feed.state, "ok");
      // A new entry afterwards is still sent: the feed was not made to forget it.
      world.site.entries = [
        entry(6, { id: "urn:new-cms:6", title: "After the refusal" }),
        ...world.site.entries,
      ];
      const sent = world.target.sandbox.statuses.length;
      const read = (await (await api("fetch")).json()) as { read: { recorded: { sent: number } } };
      assert.equal(read.read.recorded.sent, 1);
      await eventually("the new entry is sent", async () =>
        world.target.sandbox.statuses.length === sent + 1 ? true : undefined,
      );
    });

    it("a feed gone for good (410) is stopped: Fetch now is offered no more, and asked anyway it is refused (409)", async () => {
      world.site.answers.set("/feed", (_request, response) => {
        response.writeHead(410, { "content-type": "text/plain" }).end("gone");
      });
      const section = await (await htmx("fetch")).text();
      assert.match(text(section), /is stopped and is not read: .*410/);
      assert.match(text(section), /Stopped .* Next read not again by itself/);
      assert.doesNotMatch(section, /id="fetch-/, "no Fetch now for a stopped feed");
      const asked = world.site.requests.length;
      const again = await api("fetch");
      assert.equal(again.status, 409);
      assert.match(((await again.json()) as { message: string }).message, /is stopped and is not read/);
      assert.equal(world.site.requests.length, asked, "a stopped feed is not read");
    });
  });
}
