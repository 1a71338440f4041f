// Finding a post on the Syndicate page (decision 0023): the list filters by state and target and
// searches titles and addresses (however the address is written), all as query parameters so that
// the filtered list is a link; a run in Recent runs links to the posts it touched; runs that sent
// nothing are not listed.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright";
import { type SyndicateWorld, shownText, startSyndicateWorld } from "./syndicate-world.ts";

describe("the Syndicate page filters and searches its posts", () => {
  let world: SyndicateWorld;
  let page: Page;
  let refusedUrl: string;

  const titles = () => page.locator(".post-row .post-title").allInnerTexts();

  before(async () => {
    // Trigger-only: the runs here are the test's own.
    world = await startSyndicateWorld({ serverConfig: { "@possekit/endpoint-syndicate": {} } });
    world.other.setFailure(401, "The access token is invalid");
    await world.publish("Sent everywhere at once.", [world.socialUid], "Morning walk");
    refusedUrl = await world.publish(
      "The other account refuses this one.",
      [world.socialUid, world.otherUid],
      "Heron",
    );
    await world
      .syndication()
      .runs.startBatch("webhook")
      .then((run) => run.done);
    await world.publish("Not sent yet.", [world.socialUid], "Evening light");
    page = await world.signedInPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${world.server.url}/syndicate`);
  });
  after(() => world.close());

  it("shows only the posts that need attention, as a link that keeps the filter", async () => {
    assert.deepEqual(await titles(), ["Heron", "Evening light"]);
    await page.getByLabel("Show", { exact: true }).selectOption("attention");
    await page.getByRole("button", { name: "Filter", exact: true }).click();
    await page.waitForURL(`${world.server.url}/syndicate?state=attention`);
    assert.deepEqual(await titles(), ["Heron"]);
    assert.match(await shownText(page.locator("#awaiting-count")), /^1 post matches/);
    await page.getByLabel("Show", { exact: true }).selectOption("waiting");
    await page.getByRole("button", { name: "Filter", exact: true }).click();
    await page.waitForURL(/state=waiting/);
    assert.deepEqual(await titles(), ["Evening light"]);
  });

  it("filters by target, among every post", async () => {
    await page.goto(`${world.server.url}/syndicate?state=all`);
    assert.deepEqual(await titles(), ["Morning walk", "Heron", "Evening light"]);
    await page.getByLabel("Target", { exact: true }).selectOption(world.otherUid);
    await page.getByRole("button", { name: "Filter", exact: true }).click();
    await page.waitForURL(/target=/);
    assert.deepEqual(await titles(), ["Heron"]);
  });

  it("finds a post by words of its title or by its address written loosely", async () => {
    await page.goto(`${world.server.url}/syndicate?state=all`);
    await page.getByLabel("Title or address").fill("evening");
    await page.getByRole("button", { name: "Filter", exact: true }).click();
    await page.waitForURL(/q=evening/);
    assert.deepEqual(await titles(), ["Evening light"]);

    const loose = `${refusedUrl.replace(/\/$/, "").replace("://", "://www.")}?ref=mastodon`;
    await page.getByLabel("Title or address").fill(loose);
    await page.getByRole("button", { name: "Filter", exact: true }).click();
    await page.waitForURL(/q=/);
    assert.deepEqual(await titles(), ["Heron"]);
    await page.getByRole("link", { name: "Show all awaiting posts" }).click();
    await page.waitForURL(`${world.server.url}/syndicate`);
  });

  it("links a run in Recent runs to the posts it touched, and leaves out runs that sent nothing", async () => {
    // A second run only skips the refused post (it waits for the user): it sent nothing.
    await page.goto(`${world.server.url}/syndicate`);
    const before = await page.locator("#recent-runs tbody tr").count();
    const skipping = await world.syndication().runs.startBatch("cli");
    const summary = await skipping.done;
    assert.equal(summary.syndicated, 1, "the new post is sent");
    const nothing = await (await world.syndication().runs.startBatch("cli")).done;
    assert.deepEqual(nothing, { posts: 1, syndicated: 0, partial: 0, failed: 0, skipped: 1 });
    await page.reload();
    assert.equal(
      await page.locator("#recent-runs tbody tr").count(),
      before + 1,
      "the run that sent nothing is not listed",
    );

    const first = page.locator("#recent-runs tbody tr").last();
    await first.getByRole("link").click();
    await page.waitForURL(/state=all&run=\d+/);
    assert.deepEqual(await titles(), ["Morning walk", "Heron"]);
    assert.match(await shownText(page.locator(".filter-run")), /Posts touched by run \d+/);
  });
});
