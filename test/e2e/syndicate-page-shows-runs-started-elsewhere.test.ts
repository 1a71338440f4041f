// A run the page did not start (the deploy webhook here; the command line or another tab alike):
// the page says it is in progress, since when and started by what, keeps "Syndicate all" disabled
// meanwhile (on a fresh load at once, on an open page by polling), refuses a second run with one
// message naming the run, and, once it has ended, updates the open page's rows, count and recent
// runs and announces the end once (decision 0024).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright";
import type { BatchRun } from "../../src/syndication/syndication.ts";
import { type SyndicateWorld, shownText, startSyndicateWorld } from "./syndicate-world.ts";

// The target hangs until the endpoint gives up on it: the run lasts this long, far longer than the
// page's polling interval (3 s) and than the three checks made while it runs, so that an open page
// sees it while it runs. 15 s was too short on a loaded CI machine: the run had ended before the
// second check submitted its form (the last test waits for its end, so a longer run costs no check).
const TARGET_TIMEOUT_MS = 60_000;

describe("a run started elsewhere shows on the Syndicate page", () => {
  let world: SyndicateWorld;
  let openPage: Page;
  let stalePage: Page;
  let run: BatchRun;

  before(async () => {
    world = await startSyndicateWorld({
      serverConfig: { "@possekit/endpoint-syndicate": { targetTimeoutMs: TARGET_TIMEOUT_MS } },
    });
    // Sent at once, before the note that hangs: the run has one post done while it runs.
    await world.publish("A note for the other account, sent first.", [world.otherUid]);
    await world.publish("A note the deploy webhook will send.", [world.socialUid]);
    openPage = await world.signedInPage();
    await openPage.goto(`${world.server.url}/syndicate`);
    assert.match(await shownText(openPage.locator("#run-status")), /No run is in progress/);
    assert.equal(await openPage.locator("#syndicate-all").isDisabled(), false);
    // A page that still offers "Syndicate all" once the run has started: its poll has not come round
    // yet. Its clock (the page's own, Playwright's) stands still from before it loads, so that this
    // holds however long the machine takes: on a loaded one, the first test outlasted the poll's 3 s,
    // the poll made the button unavailable, and the page rightly held the form's request back.
    stalePage = await world.signedInPageWithItsClockStill("/syndicate");
    assert.equal(await stalePage.locator("#syndicate-all").isDisabled(), false);

    world.social.hang();
    run = await world.syndication().runs.startBatch("webhook");
  });
  after(async () => {
    await run.done.catch(() => {});
    await world.close();
  });

  it("shows a page loaded during the run that it is in progress, since when and by what, with the button disabled", async () => {
    const page = await openPage.context().newPage();
    await page.goto(`${world.server.url}/syndicate`);
    const status = await shownText(page.locator("#run-status"));
    assert.match(status, /A run is in progress\./);
    assert.match(status, /by the deploy webhook/);
    assert.match(status, /Started [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}/);
    // How far it has got, though this page did not start it and follows no stream of it.
    assert.equal(
      await shownText(page.locator("#run-status .run-progress-so-far")),
      "1 post done so far: 1 syndicated.",
    );
    assert.equal(await page.locator("#syndicate-all").isDisabled(), true);
    assert.equal(await page.locator("#syndicate-all").getAttribute("aria-describedby"), "run-status");
    await page.close();
  });

  it("tells a page that still offers 'Syndicate all' that syndication is already in progress", async () => {
    const button = stalePage.locator("#syndicate-all");
    assert.equal(await button.isDisabled(), false);
    assert.equal(
      await button.getAttribute("aria-disabled"),
      null,
      "the page has not polled since the run started",
    );
    // The form is submitted as a click on the stale button would submit it.
    await stalePage
      .locator("#syndicate-all-form")
      .evaluate((form) => (form as HTMLFormElement).requestSubmit());
    // The page's clock still stands: what it shows now came with the refusal, not from a poll.
    const announcer = stalePage.locator("#run-announcer");
    await announcer.getByText(/^Syndication is already in progress/).waitFor();
    // One message, naming the run that holds the lease; the status and the button agree with it.
    assert.equal(await announcer.locator("p").count(), 1);
    const shown = await shownText(announcer);
    assert.match(
      shown,
      /^Syndication is already in progress: the run started [A-Z][a-z]{2} \d{1,2}, \d{4}, .* by the deploy webhook\./,
    );
    assert.doesNotMatch(shown, /conflicts with something/);
    assert.match(await shownText(stalePage.locator("#run-status")), /A run is in progress\./);
    assert.equal(await button.getAttribute("aria-disabled"), "true");
    await stalePage.context().close();
  });

  it("notices the run on an open page by polling, and disables 'Syndicate all' meanwhile", async () => {
    await openPage.locator("#run-status.is-running").waitFor();
    assert.match(await shownText(openPage.locator("#run-status")), /by the deploy webhook/);
    assert.equal(await openPage.locator("#syndicate-all").isDisabled(), true);
  });

  it("says how the run ended once it has, and enables 'Syndicate all' again", async () => {
    const summary = await run.done;
    world.social.clearBehaviour();
    assert.deepEqual(summary, { posts: 2, syndicated: 1, partial: 0, failed: 1, skipped: 0 });
    await openPage.locator("#run-status.is-ended").waitFor();
    const status = await shownText(openPage.locator("#run-status"));
    assert.match(status, /The run started by the deploy webhook on .* has ended\./);
    // Its end is announced once, in the live region, with every count, as an error.
    const announcer = openPage.locator("#run-announcer");
    await announcer.getByText(/2 posts processed/).waitFor();
    assert.equal(
      await shownText(announcer),
      "2 posts processed: 1 syndicated, 1 failed. Show the posts that need attention",
    );
    assert.equal(await announcer.locator(".flash-error").count(), 1);
    assert.doesNotMatch(status, /processed/);
    assert.equal(await openPage.locator("#syndicate-all").isDisabled(), false);
    // The open page's row shows what the run did, without a reload.
    const row = openPage
      .locator(".post-row", { hasText: "deploy webhook will send" })
      .locator(".target")
      .first();
    await row.locator(".state-label", { hasText: "Failed, waiting to retry" }).waitFor();
    assert.match(await shownText(row.locator(".target-error")), /did not answer/);
    assert.match(await shownText(openPage.locator("#recent-runs")), /Webhook/);
    assert.match(await shownText(openPage.locator("#awaiting-count")), /^1 post awaits syndication/);
    // Announced once: the next polls leave the announcement alone. Each poll's answer brings the
    // time the server answered it (the status's `since`): two answers after the announcement was
    // cleared, the second asked for after it, and it is still empty.
    await openPage.evaluate(() => {
      document.getElementById("run-announcer")?.replaceChildren();
    });
    const answeredAt = openPage.locator("#run-status input[name=since]");
    for (const _ of [1, 2]) {
      const previous = await answeredAt.getAttribute("value");
      await openPage.waitForFunction(
        (previous) =>
          document.querySelector("#run-status input[name=since]")?.getAttribute("value") !== previous,
        previous,
      );
    }
    assert.equal(await shownText(announcer), "");

    await openPage.getByRole("link", { name: "Show the current list" }).click();
    await openPage.waitForLoadState();
    const target = openPage
      .locator(".post-row", { hasText: "deploy webhook will send" })
      .locator(".target")
      .first();
    assert.equal(await shownText(target.locator(".state-label")), "Failed, waiting to retry");
    assert.match(await shownText(target.locator(".target-error")), /did not answer/);
    assert.match(await shownText(openPage.locator("#recent-runs")), /Webhook/);
  });
});
