// Decision 0032, the pages store's public pages are accessible: a post's h-entry page (with a photo,
// categories and a copy's link) and the h-feed home page have no axe-core violation, in English,
// German and French, on a desktop and a phone.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright";
import { launchChromium } from "../helpers/chromium.ts";
import { type PublishingWorld, startPublishingWorld } from "../publishing/publishing-world.ts";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

async function violations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const found = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)",
  )) as Array<{ id: string; impact: string | null; help: string; nodes: { target: string[] }[] }>;
  return found.map(
    (v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`,
  );
}

describe("the pages store's post page and home page", () => {
  let world: PublishingWorld;
  let browser: Browser;
  let post: string;
  before(async () => {
    world = await startPublishingWorld({ schedule: false });
    browser = await launchChromium();
    const response = await world.micropub({
      type: ["h-entry"],
      properties: {
        name: ["An accessible post"],
        content: [
          { html: '<p>Some <strong>words</strong> and <a href="https://example.org/">a link</a>.</p>' },
        ],
        category: ["a11y", "indieweb"],
        photo: [{ value: "https://example.org/tiny.gif", alt: "A tiny picture" }],
        syndication: ["https://social.example/@me/1"],
      },
    });
    post = response.headers.get("location") ?? "";
    await world.micropub({ type: ["h-entry"], properties: { content: ["A note without a name"] } });
  });
  after(async () => {
    await browser.close();
    await world.close();
  });

  for (const locale of ["en", "de", "fr"]) {
    for (const width of [1280, 360]) {
      it(`has no violation in ${locale} at ${width} px`, async () => {
        const context = await browser.newContext({ locale, viewport: { width, height: 800 } });
        const page = await context.newPage();
        assert.equal(await (await page.goto(post))?.status(), 200);
        assert.equal(await page.locator(".h-entry img.u-photo").getAttribute("alt"), "A tiny picture");
        assert.equal(
          await page.locator("a.u-syndication").getAttribute("href"),
          "https://social.example/@me/1",
        );
        for (const url of [post, `${world.server.url}/`]) {
          const response = await page.goto(url);
          assert.equal(response?.status(), 200);
          assert.equal(await page.getAttribute("html", "lang"), locale);
          assert.deepEqual(await violations(page), [], url);
        }
        await context.close();
      });
    }
  }
});
