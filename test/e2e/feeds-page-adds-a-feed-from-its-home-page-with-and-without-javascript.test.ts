// Decision 0054 in a real browser (Debian's Chromium), with JavaScript on and off: the owner opens
// the Feeds tab, pastes a site's home page (a local HTTP server naming its Atom feed in
// <link rel="alternate">), reads what was found, ticks the target by its name, adds the feed and is
// told its first read sent nothing; the site publishes, and the new entry goes out once to the
// sandbox Mastodon on the scheduler's own turn, without a restart. axe finds nothing on the page, with
// what was found and with the feed listed, in en, de and fr at 1280 and 360 px, and the page never
// scrolls sideways at 360 px.
// The browser signs in once and every context starts with that session (decision 0077): signing in
// is not what this file tests, and each language's page is loaded once, checked at 1280 px, then
// narrowed to 360 px and checked again (the page lays out by CSS media queries alone, which the
// browser applies again on a resize), as the axe test of every page does.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright";
import { EndpointSyndicate } from "../../src/plugin/endpoint-syndicate.ts";
import { closeAll, startTarget, type Target } from "../endpoint/endpoint-server.ts";
import { homePage } from "../feeds-page/feeds-page-kit.ts";
import { launchChromium } from "../helpers/chromium.ts";
import { TestClock } from "../helpers/clock.ts";
import { pgliteEngine } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { FeedSite, type SiteEntry } from "../sources/feeds/feed-site.ts";
import { SCREENSHOTS, shownText } from "./syndicate-world.ts";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const LOCALES = ["en", "de", "fr"] as const;
/** The desktop's width first: each page is loaded at it, then narrowed to the phone's. */
const WIDTHS = [1280, 360] as const;
const HEIGHT = 900;

/** axe's violations on the page as it is now (axe-core evaluated into it once per document). */
async function violations(page: Page): Promise<string[]> {
  if (!(await page.evaluate("typeof axe !== 'undefined'"))) await page.evaluate(AXE);
  const found = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)",
  )) as { id: string; help: string; nodes: { target: string[] }[] }[];
  return found.map((v) => `${v.id}: ${v.help} (${v.nodes.map((node) => node.target.join(" ")).join(", ")})`);
}

const day = (n: number) => new Date(Date.UTC(2026, 2, n, 9)).toISOString();
const entry = (site: string, n: number, title = `Old post ${n}`): SiteEntry => ({
  id: `tag:${site},2026:${n}`,
  url: `https://${site}/2026/03/post-${n}/`,
  title,
  content: `<p>${title}.</p>`,
  published: day(n),
});

describe("the Feeds page in the browser: a feed added from its home page", () => {
  const clock = new TestClock(Date.now());
  const sites: FeedSite[] = [];
  let target: Target;
  let plugin: EndpointSyndicate;
  let server: TestServer;
  let browser: Browser;
  /** The owner's session, signed in once: every context starts with it. */
  let storageState: Awaited<ReturnType<BrowserContext["storageState"]>>;

  before(async () => {
    for (const name of ["on.example", "off.example"]) {
      const site = await new FeedSite("atom").start();
      site.entries = [entry(name, 2), entry(name, 1)];
      site.answers.set("/", homePage(`${site.url}/feed`, `The ${name} blog`));
      sites.push(site);
    }
    target = await startTarget();
    plugin = new EndpointSyndicate(
      {
        schedule: { enabled: true, whenLive: false },
        targets: { checkAtStart: false },
        retry: { baseMs: 100, maxMs: 400 },
      },
      { env: {}, now: clock.now },
    );
    server = await startTestServer({
      engine: pgliteEngine,
      config: { plugins: [], fetch: { allowPrivate: true } },
      plugins: [target.syndicator(), plugin],
    });
    browser = await launchChromium();
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(`${server.url}/session/login`);
    await page.locator("input[type=password]").fill(server.password);
    await page.locator("input[type=password]").press("Enter");
    await page.waitForURL((url) => !url.pathname.startsWith("/session/login"));
    storageState = await context.storageState();
    await context.close();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await closeAll(target, ...sites);
  });

  async function signedIn(
    options: Parameters<Browser["newContext"]>[0],
  ): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ ...options, storageState });
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    return { context, page };
  }

  for (const [round, javaScriptEnabled] of [
    [0, true],
    [1, false],
  ] as const)
    it(`JavaScript ${javaScriptEnabled ? "on" : "off"}: paste the home page, tick the target, add; a new entry goes out once`, async () => {
      const site = sites[round];
      assert.ok(site);
      const { context, page } = await signedIn({ javaScriptEnabled, viewport: { width: 1280, height: 900 } });
      await page.goto(`${server.url}/syndicate`);
      await page
        .getByRole("navigation", { name: "Syndication pages" })
        .getByRole("link", { name: "Feeds" })
        .click();
      await page.waitForURL(`${server.url}/syndicate/feeds`);

      await page.getByLabel("Address of the site's home page or of its feed").fill(`${site.url}/`);
      await page.getByRole("button", { name: "Look for feeds" }).click();
      const found = page.locator(".found-feed");
      await found.first().waitFor();
      assert.equal(await found.count(), 1);
      assert.match(
        await shownText(page.locator("#found-heading")),
        /^Found 1 feed at http:\/\/127\.0\.0\.1:\d+\/$/,
      );
      const shown = await shownText(found);
      assert.match(shown, /A site — Atom/);
      assert.match(shown, /2 entries now · no WebSub hub: read on its interval/);
      assert.match(shown, /Old post 2.*Old post 1/, "its newest entries, newest first");
      assert.equal(await found.getByRole("radio").isChecked(), true, "the one feed found is chosen");
      assert.match(await shownText(page.locator("[data-first-read]")), /^The first read sends nothing/);
      assert.match(
        await shownText(page.locator("#add-backfill-hint")),
        /^Default 0: the first read sends nothing/,
      );

      await page.getByRole("checkbox", { name: /@demo@127\.0\.0\.1:\d+/ }).check();
      await page.getByRole("button", { name: "Add this feed" }).click();
      const flash = page.locator("main > .flash-success");
      await flash.waitFor();
      assert.match(
        await shownText(flash),
        /^Added http:\/\/127\.0\.0\.1:\d+\/feed\. Its first read knows 2 entries and sent nothing/,
      );
      const listed = page.locator(`[data-feed-url="${site.url}/feed"]`);
      assert.match(await shownText(listed), /New entries go to @demo@/);
      if (javaScriptEnabled)
        await page.screenshot({ path: join(SCREENSHOTS, "feeds-page-added.png"), fullPage: true });
      assert.equal(target.sandbox.statuses.length, round, "nothing sent by adding it");

      // The site publishes; nobody clicks: the scheduler's next turn reads it and sends it, once.
      const title = `Fresh on ${javaScriptEnabled ? "on" : "off"}`;
      site.entries = [entry("fresh.example", 3 + round, title), ...site.entries];
      clock.advance(300_000);
      plugin.scheduler?.nudge();
      await eventually("the new entry is sent", async () =>
        target.sandbox.statuses.some((status) => status.text.includes(title)) ? true : undefined,
      );
      clock.advance(300_000);
      plugin.scheduler?.nudge();
      await eventually("nothing waits", async () =>
        (await server.host.postSource?.countAwaitingSyndication()) === 0 ? true : undefined,
      );
      assert.equal(target.sandbox.statuses.filter((status) => status.text.includes(title)).length, 1, "once");
      await context.close();
    });

  it("axe finds nothing on the Feeds page, with what was found and with feeds listed, in three languages at 1280 and 360 px", async () => {
    const failures: string[] = [];
    for (const locale of LOCALES) {
      const { context, page } = await signedIn({ locale, viewport: { width: WIDTHS[0], height: HEIGHT } });
      await page.goto(`${server.url}/syndicate/feeds`);
      assert.equal(await page.getAttribute("html", "lang"), locale);
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: HEIGHT });
        // The layout axe sees is the width's.
        assert.equal(await page.evaluate("window.innerWidth"), width, `list ${locale} at ${width}px`);
        for (const violation of await violations(page))
          failures.push(`list ${locale} ${width}px: ${violation}`);
      }
      await page.setViewportSize({ width: WIDTHS[0], height: HEIGHT });
      await page.locator("#feed-address").fill(`${sites[0]?.url}/`);
      await page.locator("#discover-feeds").click();
      await page.locator(".found-feed").first().waitFor();
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: HEIGHT });
        assert.equal(await page.evaluate("window.innerWidth"), width, `found ${locale} at ${width}px`);
        for (const violation of await violations(page))
          failures.push(`found ${locale} ${width}px: ${violation}`);
        const sideways = await page.evaluate(
          "document.documentElement.scrollWidth > document.documentElement.clientWidth",
        );
        if (sideways) failures.push(`found ${locale} ${width}px: scrolls sideways`);
      }
      await context.close();
    }
    assert.deepEqual(failures, []);
  });
});
