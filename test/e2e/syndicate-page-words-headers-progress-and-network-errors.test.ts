// Decision 0051, the page's words: table headings never break inside a word (en, de, fr); a batch shows
// one progress count, out of the posts that awaited; the summary leaves out "0 partly"; a raw
// ECONNREFUSED is explained with the setting to check; "Syndicate all" says that it ignores the
// filter; the consent page asks the right way round.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright";
import { type SyndicateWorld, shownText, startSyndicateWorld } from "./syndicate-world.ts";

/** Words of the runs table's headings that the browser laid out on more than one line. */
function wordsBrokenInHeadings(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const broken: string[] = [];
    for (const th of Array.from(document.querySelectorAll(".runs-table th"))) {
      const text = th.firstChild;
      if (!text || text.nodeType !== Node.TEXT_NODE) continue;
      const value = text.textContent ?? "";
      for (const match of value.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(text, match.index);
        range.setEnd(text, match.index + match[0].length);
        const lines = new Set(Array.from(range.getClientRects()).map((rect) => Math.round(rect.top)));
        if (lines.size > 1) broken.push(match[0]);
      }
    }
    return broken;
  });
}

describe("the Syndicate page's words", () => {
  let world: SyndicateWorld;
  before(async () => {
    world = await startSyndicateWorld({
      serverConfig: { "@possekit/endpoint-syndicate": { schedule: { enabled: false } } },
    });
  });
  after(() => world.close());

  it("shows one progress count out of the posts that awaited, and no zero counts in the summary", async () => {
    for (const text of ["Count one.", "Count two.", "Count three."])
      await world.publish(text, [world.socialUid]);
    // Each post waits at the sandbox until the test lets it through: a count stays on the page until
    // the test has seen it, however loaded the machine (Playwright looks every 500 ms, and a count
    // that lasted a 400 ms wait fell between two looks).
    world.social.holdUntilReleased();
    world.social.release();
    const page = await world.signedInPage();
    await page.goto(`${world.server.url}/syndicate`);
    await page.getByRole("button", { name: "Syndicate all" }).click();
    await page.locator("#run-progress", { hasText: /^1 of 3 posts done so far: 1 syndicated\.$/ }).waitFor();
    // The one count the page shows while the second post is being sent.
    assert.equal(await page.getByText(/done so far/).count(), 1);
    world.social.release();
    await page.locator("#run-progress", { hasText: /^2 of 3 posts done so far: 2 syndicated\.$/ }).waitFor();
    world.social.clearBehaviour();
    const summary = page.locator("#run-announcer").getByText(/^3 posts processed/);
    await summary.waitFor();
    assert.equal(await shownText(summary), "3 posts processed: 3 syndicated.");
    await page.context().close();
  });

  for (const [locale, width] of [
    ["en-GB", 1280],
    ["de-DE", 1280],
    ["fr-FR", 1280],
    ["de-DE", 900],
  ] as const) {
    it(`breaks no heading of Recent runs inside a word (${locale}, ${width} px)`, async () => {
      const page = await world.signedInPage({ locale, viewport: { width, height: 900 } });
      await page.goto(`${world.server.url}/syndicate`);
      await page.locator(".runs-table th").first().waitFor();
      assert.deepEqual(await wordsBrokenInHeadings(page), []);
      await page.context().close();
    });
  }

  it("says that Syndicate all ignores the filter", async () => {
    const page = await world.signedInPage();
    await page.goto(`${world.server.url}/syndicate?state=all&q=Count`);
    assert.match(await shownText(page.locator("#syndicate-all-form .run-hint")), /ignores the filter/);
    await page.goto(`${world.server.url}/syndicate`);
    assert.doesNotMatch(await shownText(page.locator("#syndicate-all-form .run-hint")), /filter/);
    await page.context().close();
  });

  it("explains a refused connection: what happened, the setting and what to check", async () => {
    // The other account's server is gone: nothing listens at its address any more.
    const closeOther = world.other.close.bind(world.other);
    await closeOther();
    world.other.close = async () => {};
    await world.publish("To a server that is gone.", [world.otherUid]);
    await (await world.syndication().runs.startBatch("manual")).done;
    const page = await world.signedInPage();
    await page.goto(`${world.server.url}/syndicate`);
    const target = page.locator(".post-row", { hasText: "server that is gone" }).locator(".target");
    assert.match(await shownText(target.locator(".target-error")), /ECONNREFUSED/);
    assert.match(
      await shownText(target.locator(".target-help")),
      /^Nothing answered at http:\/\/127\.0\.0\.1:\d+ \(connection refused\).*Check the option "@possekit\/syndicator-mastodon"\.url in possekit\.config\.json/,
    );
    await page.context().close();
  });
});
