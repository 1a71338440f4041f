// The Syndicate page announces the end of a run started elsewhere once, even when a poll answers
// slower than the polling interval (a loaded server): the next poll is not sent until that answer is
// in, so it never goes out with what the page knew before it (decision 0024's "announces the end
// once"). The page's clock is Playwright's, standing still: each poll is one step of the test.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page, Route } from "playwright";
import { type SyndicateWorld, shownText, startSyndicateWorld } from "./syndicate-world.ts";

/** The page's polling interval (views/syndicate/_run-status.njk). */
const POLL_MS = 3_000;
const STATUS = /\/syndicate\/status\?/;

describe("a slow poll does not make the page announce a run's end twice", () => {
  let world: SyndicateWorld;
  let page: Page;

  before(async () => {
    world = await startSyndicateWorld();
    await world.publish("A note the deploy webhook will send.", [world.socialUid]);
    page = await world.signedInPageWithItsClockStill("/syndicate");
    assert.match(await shownText(page.locator("#run-status")), /No run is in progress/);
  });
  after(() => world.close());

  it("sends no poll while one is unanswered, and announces the end once", async () => {
    // The run starts and ends between two polls of the open page.
    const run = await world.syndication().runs.startBatch("webhook");
    assert.equal((await run.done).syndicated, 1);

    // Every poll the page sends, with what it said it had announced and what it was answered.
    const polls: { announced: string | null; answer: string }[] = [];
    let answerFirst = () => {};
    const firstHeld = new Promise<void>((resolve) => {
      answerFirst = resolve;
    });
    await page.route(STATUS, async (route: Route) => {
      const poll = { announced: new URL(route.request().url()).searchParams.get("announced"), answer: "" };
      polls.push(poll);
      // The first poll after the run is slow to answer: the next interval passes meanwhile.
      if (polls.length === 1) await firstHeld;
      const response = await route.fetch();
      poll.answer = await response.text();
      await route.fulfill({ response });
    });
    const firstSent = page.waitForRequest(STATUS);
    await page.clock.runFor(POLL_MS);
    await firstSent;
    await page.clock.runFor(POLL_MS);
    answerFirst();
    await page
      .locator("#run-announcer")
      .getByText(/1 post processed/)
      .waitFor();

    // The next poll goes out after that answer, saying the end was announced.
    const announcedSent = page.waitForResponse((response) => /[?&]announced=\d/.test(response.url()));
    await page.clock.runFor(POLL_MS);
    await announcedSent;
    assert.deepEqual(
      polls.map((poll) => ({ announced: poll.announced !== "", announces: /processed/.test(poll.answer) })),
      [
        { announced: false, announces: true },
        { announced: true, announces: false },
      ],
      "one poll at a time, none sent with what the page knew before the first answer",
    );
  });
});
