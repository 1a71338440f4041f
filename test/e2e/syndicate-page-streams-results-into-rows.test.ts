// The Syndicate page as a user meets it (decision 0011): signed in, they click Syndicate in the
// navigation, see the awaiting posts, syndicate one and watch its row turn syndicated with the
// copy's link without a reload, start "Syndicate all" against a slow target and watch each row
// change while the run streams (ending with a summary in the aria-live region), then open a post's
// results page: its targets, the failed target's error, and its history.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright";
import { SCREENSHOTS, type SyndicateWorld, shownText, startSyndicateWorld } from "./syndicate-world.ts";

/** Each update the page receives, in order: a row whose first target became syndicated, or the summary. */
interface Observed {
  what: string;
  /** Whether "Syndicate all" was disabled and the status said a run is in progress at that moment. */
  runShownInProgress: boolean;
}

// Plain JavaScript run in the page (a string, so that the TypeScript loader adds nothing to it).
const OBSERVE_UPDATES = `(() => {
  const log = [];
  const firstState = (row) => row.querySelector(".target .state-label")?.textContent;
  // Rows already syndicated before the run are not its updates.
  const seen = new Set([...document.querySelectorAll(".post-row")]
    .filter((row) => firstState(row) === "Syndicated").map((row) => row.id));
  window.updates = log;
  const unavailable = (button) => !!button && (button.disabled || button.getAttribute("aria-disabled") === "true");
  const inProgress = () => unavailable(document.querySelector("#syndicate-all")) &&
    document.querySelector("#run-status.is-running") !== null;
  new MutationObserver(() => {
    for (const row of document.querySelectorAll(".post-row")) {
      if (firstState(row) === "Syndicated" && !seen.has(row.id)) {
        seen.add(row.id);
        log.push({ what: row.id, runShownInProgress: inProgress() });
      }
    }
    const announced = document.querySelector("#run-announcer")?.textContent ?? "";
    if (/posts processed/.test(announced) && !seen.has("summary")) {
      seen.add("summary");
      log.push({ what: "summary", runShownInProgress: inProgress() });
    }
  }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
})()`;

async function observeUpdates(page: Page): Promise<void> {
  await page.evaluate(OBSERVE_UPDATES);
}

describe("the Syndicate page streams results into the rows", () => {
  let world: SyndicateWorld;
  let page: Page;
  const posts: string[] = [];

  /** The same user on a phone: 360 px wide. */
  async function phonePage(): Promise<Page> {
    const phone = await world.browser.newContext({ viewport: { width: 360, height: 780 } });
    await phone.addCookies(await page.context().cookies());
    const small = await phone.newPage();
    small.setDefaultTimeout(60_000);
    return small;
  }

  before(async () => {
    world = await startSyndicateWorld();
    const both = [world.socialUid, world.otherUid];
    posts.push(
      await world.publish(
        "Trying POSSE: this note lives on my own site first, copies go out from here.",
        both,
      ),
      await world.publish(
        "A longer piece about owning your words.",
        [world.socialUid],
        "Why I publish on my own site",
      ),
      await world.publish(
        "Photos from the weekend walk along the river, and the heron that would not move.",
        [world.socialUid],
      ),
      await world.publish("Short note: the syndication page now streams its results.", [world.socialUid]),
    );
    // The other account's server is down for now.
    world.other.setFailure(503, "Service temporarily unavailable");
    page = await world.signedInPage({ viewport: { width: 1280, height: 900 } });
  });
  after(() => world.close());

  it("is reached from the navigation and lists the awaiting posts, oldest first, with their targets", async () => {
    // Any signed-in page of the server has the navigation; the status page is the host's own.
    await page.goto(`${world.server.url}/status`);
    await page.getByRole("navigation").getByRole("link", { name: "Syndicate" }).click();
    await page.waitForURL(`${world.server.url}/syndicate`);
    assert.equal(await page.getByRole("heading", { level: 1 }).textContent(), "Syndicate");
    assert.match(await shownText(page.locator(".awaiting-count")), /4 posts await syndication/);
    const titles = await page.locator(".post-row .post-title").allInnerTexts();
    assert.deepEqual(titles, [
      "Trying POSSE: this note lives on my own site first, copies go out from here.",
      "Why I publish on my own site",
      "Photos from the weekend walk along the river, and the heron that would not move.",
      "Short note: the syndication page now streams its results.",
    ]);
    const first = page.locator(".post-row").first();
    assert.deepEqual(await first.locator(".target .state-label").allInnerTexts(), ["Pending", "Pending"]);
    assert.equal(await first.getByRole("link", { name: /Open the post/ }).getAttribute("href"), posts[0]);
    assert.equal(await first.locator("time").count(), 1);
    const targets = await page.locator(".configured-targets li").allInnerTexts();
    assert.equal(targets.length, 2);
  });

  it("syndicates one post from the keyboard and turns its row syndicated, with the copy's link, without a reload", async () => {
    await page.evaluate(() => {
      (window as unknown as { sameDocument: boolean }).sameDocument = true;
    });
    const row = page.locator(".post-row").first();
    const button = row.getByRole("button", { name: /Syndicate/ });
    await button.focus();
    await page.keyboard.press("Enter");
    const announcer = page.locator("#run-announcer[role=status]");
    await announcer.getByText(/reached some of its targets/).waitFor();

    const social = row.locator(".target").first();
    assert.equal(await shownText(social.locator(".state-label")), "Syndicated");
    const copy = world.social.statuses[0];
    assert.ok(copy, "the sandbox received the status");
    assert.equal(await social.locator("a.target-copy").getAttribute("href"), copy.url);
    const other = row.locator(".target").nth(1);
    assert.equal(await shownText(other.locator(".state-label")), "Failed, waiting to retry");
    assert.match(await shownText(other.locator(".target-error")), /503 Service temporarily unavailable/);
    assert.equal(
      await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument),
      true,
    );
    assert.ok(
      await button.evaluate((element) => element === document.activeElement),
      "the button keeps the focus through the update",
    );
  });

  it("fits a phone's 360 px width, rows and all", async () => {
    const small = await phonePage();
    await small.goto(`${world.server.url}/syndicate`);
    const width = await small.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 360, `the page fits 360 px without scrolling sideways (is ${width} px)`);
    await small.locator("#awaiting-heading").evaluate((heading) => heading.scrollIntoView());
    await small.screenshot({ path: join(SCREENSHOTS, "syndicate-360px.png") });
    await small.context().close();
  });

  it("streams each row's result as it arrives during 'Syndicate all', then announces the summary", async () => {
    // Post 2 goes through, post 3 waits at the sandbox until the test has seen the page mid-run, however
    // loaded the machine (a state that lasts a timed wait can fall between two of Playwright's looks).
    world.social.holdUntilReleased();
    world.social.release();
    await observeUpdates(page);
    await page.getByRole("button", { name: "Syndicate all" }).click();

    // Mid-run: the first rows have their results, the last still waits.
    await page.locator("#post-2 .state-syndicated").waitFor();
    assert.equal(await page.locator("#post-3 .state-syndicated, #post-4 .state-syndicated").count(), 0);
    // The count above the list follows the run: the post just sent no longer awaits.
    await page.locator("#awaiting-count", { hasText: /^3 posts await syndication/ }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, "syndicate-mid-run.png"), fullPage: true });
    world.social.clearBehaviour();
    await page
      .locator("#run-announcer")
      .getByText(/4 posts processed/)
      .waitFor();

    const updates = await page.evaluate(() => (window as unknown as { updates: Observed[] }).updates);
    assert.deepEqual(
      updates.map((update) => update.what),
      ["post-2", "post-3", "post-4", "summary"],
      "rows change one after another, oldest first, before the summary",
    );
    assert.ok(
      updates.slice(0, 3).every((update) => update.runShownInProgress),
      "while rows were changing, the page showed the run in progress and 'Syndicate all' disabled",
    );
    // Honest (decision 0022): the first post was skipped (its other target waits for its next try), so
    // the summary counts it, in a warning style, with a link to the posts that need attention.
    const announcer = page.locator("#run-announcer");
    assert.equal(
      await shownText(announcer),
      "4 posts processed: 3 syndicated, 1 skipped (waiting or refused). Show the posts that need attention",
    );
    assert.equal(await announcer.locator(".flash-warning").count(), 1);
    assert.equal(
      await announcer.getByRole("link", { name: "Show the posts that need attention" }).getAttribute("href"),
      "/syndicate?state=attention",
    );
    // One summary on the page: the run status says only that nothing runs now.
    const main = await shownText(page.locator("main"));
    assert.equal(main.split("posts processed").length - 1, 1, "the summary is shown once");
    assert.match(await shownText(page.locator("#run-status")), /No run is in progress/);
    // The count in the heading is the one after the run: only the first post still awaits.
    assert.match(await shownText(page.locator("#awaiting-count")), /^1 post awaits syndication/);
    assert.equal(await page.locator("#syndicate-all").isDisabled(), false);
    assert.equal(world.social.statuses.length, 4, "each post reached the slow target exactly once");
    assert.match(await shownText(page.locator("#recent-runs")), /All awaiting posts/);
  });

  it("opens a post's results page with each target's state, the failed target's error and the history", async () => {
    await page.locator(".post-row").first().locator(".post-title a").click();
    await page.waitForURL(/\/syndicate\/posts\/\d+$/);
    assert.equal(
      await shownText(page.getByRole("heading", { level: 1 })),
      "Trying POSSE: this note lives on my own site first, copies go out from here.",
    );
    const targets = page.locator(".result-target");
    assert.equal(await targets.count(), 2);
    assert.equal(await shownText(targets.nth(0).locator(".state-label")), "Syndicated");
    assert.equal(
      await targets.nth(0).locator("a.target-copy").getAttribute("href"),
      world.social.statuses[0]?.url,
    );
    assert.equal(await shownText(targets.nth(1).locator(".state-label")), "Failed, waiting to retry");
    assert.match(
      await shownText(targets.nth(1).locator(".target-error")),
      /Mastodon: 503 Service temporarily unavailable/,
    );

    const history = page.locator(".history-table tbody tr");
    assert.equal(await history.count(), 2);
    const rows = await history.evaluateAll((trs) =>
      trs.map((tr) => Array.from(tr.querySelectorAll("td"), (td) => td.textContent?.trim() ?? "")),
    );
    for (const cells of rows) {
      assert.match(cells[0] ?? "", /\d{1,2}:\d{2}:\d{2}/, "each attempt shows its time, to the second");
      assert.equal(cells[2], "Manual");
    }
    assert.deepEqual(rows.map((cells) => cells[3]).sort(), ["Failed", "Syndicated"]);
    await page.screenshot({ path: join(SCREENSHOTS, "post-results.png"), fullPage: true });
  });

  it("retries the failed target from the results page and shows the new outcome in place", async () => {
    world.other.clearBehaviour();
    await page.getByRole("button", { name: "Retry failed targets" }).click();
    await page
      .locator("#post-announcer")
      .getByText(/syndicated to every target/)
      .waitFor();
    const targets = page.locator(".result-target");
    assert.deepEqual(await targets.locator(".state-label").allInnerTexts(), ["Syndicated", "Syndicated"]);
    assert.equal(
      await targets.nth(1).locator("a.target-copy").getAttribute("href"),
      world.other.statuses[0]?.url,
    );
    assert.equal(
      await page.locator(".history-table tbody tr").count(),
      3,
      "the retry joins the history, newest first",
    );
    assert.equal(
      await shownText(page.locator(".history-table tbody tr").first().locator("td").nth(3)),
      "Syndicated",
    );
    assert.ok(
      await page.getByRole("button", { name: "Retry failed targets" }).isDisabled(),
      "nothing is left to retry",
    );
  });

  it("says plainly when nothing awaits and shows the latest results instead", async () => {
    const small = await phonePage();
    await small.goto(`${world.server.url}/syndicate`);
    assert.match(await shownText(small.locator(".empty-state")), /Nothing awaits syndication/);
    assert.equal(await small.locator(".latest .post-row").count(), 4);
    assert.equal(await small.locator(".latest form").count(), 0, "finished posts offer no Syndicate button");
    const width = await small.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 360, `the page fits 360 px without scrolling sideways (is ${width} px)`);
    await small.context().close();
  });
});
