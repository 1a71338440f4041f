// A send interrupted by a process that died leaves the target's outcome unknown (it is never sent
// again by itself). The page says so, in words and with an icon, and the results page lets the user
// confirm where the copy is: the target becomes syndicated with that link.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Ledger } from "../../src/syndication/ledger/ledger.ts";
import { type SyndicateWorld, shownText, startSyndicateWorld } from "./syndicate-world.ts";

describe("a target of unknown outcome, confirmed from the results page", () => {
  let world: SyndicateWorld;
  let postId: string;

  before(async () => {
    world = await startSyndicateWorld();
    const url = await world.publish("A note whose send was interrupted.", [world.otherUid]);
    const post = await world.server.host.posts?.findByUrl(url);
    assert.ok(post && world.server.host.database);
    postId = post.id;
    // What a process that died mid-send leaves behind: a claimed row nobody finished.
    const ledger = new Ledger(world.server.host.database);
    const claim = await ledger.claim({
      postId,
      targetUid: world.otherUid,
      idempotencyKey: "interrupted-send",
      holder: "a-process-that-died",
      runId: null,
      trigger: "batch",
    });
    assert.ok(claim);
    // As at a restart on the embedded database: every send left sending is a dead process's.
    await ledger.resolveStale(0, []);
  });
  after(() => world.close());

  it("shows the unknown outcome on the page and leads to where it can be confirmed", async () => {
    const page = await world.signedInPage();
    await page.goto(`${world.server.url}/syndicate`);
    const target = page.locator(`#post-${postId} .target`).first();
    assert.equal(await shownText(target.locator(".state-label")), "Outcome unknown");
    assert.equal(await target.locator("svg.icon-unknown").count(), 1);
    await target.getByRole("link", { name: "Confirm or retry" }).click();
    await page.waitForURL(new RegExp(`/syndicate/posts/${postId}#target-`));

    const copyUrl = `${world.other.url}/@bob/110000000000000042`;
    await page.getByLabel(/Address of the copy on @bob@/).fill(copyUrl);
    await page.getByRole("button", { name: "Confirm" }).focus();
    await page.keyboard.press("Enter");
    await page
      .locator("#post-announcer")
      .getByText(/Recorded: @bob@.* has the post at/)
      .waitFor();
    const confirmed = page.locator(".result-target").first();
    assert.equal(await shownText(confirmed.locator(".state-label")), "Syndicated");
    assert.equal(await confirmed.locator("a.target-copy").getAttribute("href"), copyUrl);
    assert.ok(
      await confirmed.evaluate((element) => element === document.activeElement),
      "the focus stays on the target whose form went away, not at the top of the page",
    );

    const post = await world.server.host.posts?.findById(postId);
    assert.deepEqual(post?.properties.syndication, [copyUrl]);
    assert.equal(post?.properties["mp-syndicate-to"], undefined);
    assert.equal(world.other.statuses.length, 0, "nothing was sent again");
    await page.context().close();
  });
});
