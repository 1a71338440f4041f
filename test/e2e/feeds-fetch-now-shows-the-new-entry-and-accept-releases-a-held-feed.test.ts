// Decision 0040 in a real browser, with and without JavaScript: a site serves its feed from a
// local HTTP server; the owner clicks "Fetch now" on the Syndicate page, reads what the read found
// and follows the link to the new entry, marked with its feed. The site then changes every id at
// once: the feed is held, "Accept the new ids…" says what it does before it does it, and accepting
// releases the feed without sending anything.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright";
import { launchChromium } from "../helpers/chromium.ts";
import { engines } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import type { SiteEntry } from "../sources/feeds/feed-site.ts";
import { type FeedWorld, startFeedWorld } from "../sources/feeds/feed-world.ts";
import { SCREENSHOTS, shownText } from "./syndicate-world.ts";

const start = Date.now() - 10 * 86_400_000;
const entry = (n: number, title = `Entry ${n}`): SiteEntry => ({
  id: `tag:site.example,2026:${n}`,
  url: `https://site.example/notes/${n}/`,
  title,
  content: `<p>${title}, from the site's feed.</p>`,
  published: new Date(start + n * 86_400_000).toISOString(),
});

const engine = engines[0];

// Evaluated, not added as a script tag: the page's Content-Security-Policy refuses inline scripts.
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** axe-core's violations within the Feeds section. */
async function feedsViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const found = (await page.evaluate(
    "axe.run('#feeds', { resultTypes: ['violations'] }).then((r) => r.violations)",
  )) as { id: string; help: string }[];
  return found.map((violation) => `${violation.id}: ${violation.help}`);
}

describe("Fetch now and Accept the new ids in the browser", () => {
  let world: FeedWorld;
  let browser: Browser;
  before(async () => {
    assert.ok(engine);
    world = await startFeedWorld(engine, {
      format: "atom",
      prepare: (site) => (site.entries = [entry(2), entry(1)]),
    });
    await world.readAt(0);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await world?.close();
  });

  async function signedInPage(javaScriptEnabled: boolean): Promise<Page> {
    const context = await browser.newContext({ javaScriptEnabled, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(`${world.server.url}/session/login`);
    await page.getByLabel(/password/i).fill(world.server.password);
    await page.getByLabel(/password/i).press("Enter");
    await page.waitForURL((url) => !url.pathname.startsWith("/session/login"));
    return page;
  }

  for (const [round, javaScriptEnabled] of [
    [0, true],
    [1, false],
  ] as const) {
    it(`JavaScript ${javaScriptEnabled ? "on" : "off"}: Fetch now shows the new entry; Accept releases a held feed`, async () => {
      const page = await signedInPage(javaScriptEnabled);
      await page.goto(`${world.server.url}/syndicate`);
      const feeds = page.locator("#feeds");
      const feed = feeds.locator(".feed").first();
      assert.match(await shownText(feed.locator(".feed-state")), /^Read$/);

      // The site publishes; nobody told possekit: Fetch now reads it at once.
      const title = `Fresh from the feed ${round}`;
      const fresh = entry(8 + round, title);
      world.site.entries = [fresh, ...world.site.entries];
      const sent = world.target.sandbox.statuses.length;
      await feed.getByRole("button", { name: /^Fetch now/ }).click();
      const outcome = javaScriptEnabled
        ? feeds.locator("#feeds-announcer .flash-success")
        : page.locator("main > .flash-success");
      await outcome.waitFor();
      assert.match(
        await shownText(outcome),
        /: 1 new entry; 1 of them goes to the feed's targets\. Show its entries$/,
      );
      if (javaScriptEnabled) assert.equal(new URL(page.url()).pathname, "/syndicate", "no page load");
      await outcome.getByRole("link", { name: "Show its entries" }).click();
      const row = page.locator(".post-row", { hasText: title });
      await row.waitFor();
      assert.match(
        await shownText(row.locator(".post-origin")),
        /^From the feed “http:\/\/127\.0\.0\.1:\d+\/feed”$/,
      );
      // The entries the first read only recorded are listed beside it, each with its Send button.
      const known = page.locator(".post-row", { hasText: "Entry 1" });
      assert.equal(await known.getByRole("button", { name: /^Send/ }).count(), 1);
      if (javaScriptEnabled) await page.screenshot({ path: join(SCREENSHOTS, "syndicate-feed-entries.png") });
      // Sent by the scheduler, once: no click needed.
      await eventually("the new entry is sent", async () =>
        world.target.sandbox.statuses.length === sent + 1 && (await world.awaiting()) === 0
          ? true
          : undefined,
      );

      // The site's new software renames every entry: the feed is held.
      world.site.entries = world.site.entries.map((item) => ({ ...item, id: `urn:cms-${round}:${item.id}` }));
      await page.goto(`${world.server.url}/syndicate#feeds-heading`);
      await feed.getByRole("button", { name: /^Fetch now/ }).click();
      const held = javaScriptEnabled
        ? feeds.locator("#feeds-announcer .flash-warning")
        : page.locator("main > .flash-warning");
      await held.waitFor();
      assert.match(await shownText(held), /and held it: The feed changed the id of \d+ of its \d+ entries/);
      assert.match(await shownText(feed.locator(".feed-state")), /^Held: waiting for you$/);
      if (javaScriptEnabled) {
        await feeds.screenshot({ path: join(SCREENSHOTS, "syndicate-feeds-held.png") });
        assert.deepEqual(await feedsViolations(page), [], "axe finds nothing in the Feeds section");
      }

      // Accept asks first: the button that accepts is only shown once the disclosure is open.
      const accept = feed.getByRole("button", { name: /^Accept the new ids, send nothing/ });
      assert.equal(await accept.isVisible(), false, "nothing accepted by one click");
      await feed.locator(".feed-accept summary").click();
      assert.match(
        await shownText(feed.locator(".feed-accept form p")),
        /takes every entry in it as a known one, under its new id: nothing is sent/,
      );
      const before = world.target.sandbox.statuses.length;
      await accept.click();
      const accepted = javaScriptEnabled
        ? feeds.locator("#feeds-announcer .flash-success")
        : page.locator("main > .flash-success");
      await accepted.waitFor();
      assert.match(
        await shownText(accepted),
        /are accepted: its entries are known under them, and nothing was sent/,
      );
      assert.match(await shownText(feed.locator(".feed-state")), /^Read$/);
      assert.equal(await feed.locator(".feed-accept").count(), 0);
      assert.equal((await world.feed.report()).state, "ok");
      assert.equal(world.target.sandbox.statuses.length, before, "accepting sent nothing");
      await page.context().close();
    });
  }
});
