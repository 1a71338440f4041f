// Recover in one action (decision 0021): a Mastodon token stops working, a run meets one refusal and
// leaves the target alone for its other posts. Once the token works again, one click on "Retry
// everything that needs attention" sends every post that was refused or skipped, each exactly once,
// the rows turn syndicated without a reload, and nothing is left needing attention.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type SyndicateWorld, shownText, startSyndicateWorld } from "./syndicate-world.ts";

describe("retry everything that needs attention, from the page", () => {
  let world: SyndicateWorld;

  before(async () => {
    // Runs only when asked, so that nothing but the test's clicks sends.
    world = await startSyndicateWorld({
      serverConfig: { "@possekit/endpoint-syndicate": { schedule: { enabled: false } } },
    });
  });
  after(() => world.close());

  it("sends every refused or skipped post once with one click, and the rows follow", async () => {
    world.other.setAccessToken("a-token-issued-later");
    for (const text of ["First post.", "Second post.", "Third post."])
      await world.publish(text, [world.otherUid]);
    await (await world.syndication().runs.startBatch("manual")).done;
    const sends = () => world.other.requests.filter((request) => request.path === "/api/v1/statuses");
    assert.equal(sends().length, 1, "one refusal, then the target is left alone for the run");

    const page = await world.signedInPage();
    await page.goto(`${world.server.url}/syndicate`);
    const rows = page.locator(".post-row");
    assert.equal(await rows.count(), 3);
    const retryAll = page.getByRole("button", { name: "Retry everything that needs attention" });
    assert.equal(await retryAll.isVisible(), true, "the button is offered while something needs attention");

    // "Syndicate all" alone leaves refused posts to their backoff; the user fixed the token instead.
    world.other.setAccessToken("other-token");
    await retryAll.click();
    await page
      .locator("#run-announcer")
      .getByText(/^3 posts processed: 3 syndicated/)
      .waitFor();

    assert.equal(world.other.statuses.length, 3, "each post reached the target exactly once");
    for (const words of ["First post.", "Second post.", "Third post."])
      assert.equal(
        world.other.statuses.filter((status) => status.text.startsWith(words)).length,
        1,
        `${words} sent once`,
      );
    for (const row of await rows.all())
      assert.equal(await shownText(row.locator(".target .state-label")), "Syndicated");

    // Nothing needs attention any more: after a reload the button is gone and no post awaits.
    await page.reload();
    assert.equal(await retryAll.count(), 0);
    assert.match(await shownText(page.locator("main")), /Nothing awaits syndication/);
    await page.context().close();
  });
});
