// Decision 0026, in the browser: a post row opens the preview of a target; the Mastodon text, edited past
// the limit, is counted live and refused with a message; fixed and saved, it is what the next send
// carries; reset brings back the template's text. Without JavaScript the same is a plain form.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright";
import { SCREENSHOTS, type SyndicateWorld, shownText, startSyndicateWorld } from "./syndicate-world.ts";

const template = "A note about herons on the canal.";

describe("preview, edit and send the Mastodon text", () => {
  let world: SyndicateWorld;
  let page: Page;
  let url: string;

  before(async () => {
    world = await startSyndicateWorld();
    url = await world.publish(template, [world.socialUid]);
    page = await world.signedInPage();
    await page.goto(`${world.server.url}/syndicate`);
  });
  after(() => world.close());

  const section = () => page.locator(".post-row").first().locator(".preview-target");

  it("opens the preview of the target from its row", async () => {
    await page.locator(".post-row").first().locator("a.target-preview").first().click();
    await section().waitFor();
    assert.equal(await section().locator("textarea").inputValue(), template);
    assert.match(await shownText(section().locator(".preview-count")), /^33 \/ 500/);
  });

  it("counts an edit past the limit live, and refuses to save it", async () => {
    const textarea = section().locator("textarea");
    await textarea.fill("h".repeat(510));
    await section().locator(".preview-over").waitFor();
    assert.match(await shownText(section().locator(".preview-count")), /510 \/ 500.*10 over the limit/);
    await section()
      .getByRole("button", { name: /Save the text/ })
      .click();
    const refusal = section().locator(".flash-error[role=alert]");
    await refusal.waitFor();
    assert.match(await shownText(refusal), /Not saved: the text has 510 characters, over .* limit of 500/);
    assert.equal(
      await section().locator("textarea").inputValue(),
      "h".repeat(510),
      "the text is kept to fix",
    );
    const post = await world.server.host.posts?.findByUrl(url);
    assert.ok(post);
    assert.equal((await world.syndication().copies.ownTextsForPost(post)).size, 0, "nothing was saved");
    await page.screenshot({ path: join(SCREENSHOTS, "preview-over-the-limit.png") });
  });

  it("saves the fixed text, and the next send carries it", async () => {
    await section().locator("textarea").fill("Herons! 🐦 My own words for Mastodon.");
    await section()
      .getByRole("button", { name: /Save the text/ })
      .click();
    await section().locator(".flash-success").waitFor();
    assert.match(await shownText(section().locator(".flash-success")), /^Saved: /);
    await page
      .locator(".post-row")
      .first()
      .getByRole("button", { name: /Syndicate/ })
      .click();
    await page.waitForFunction(() => document.querySelector(".post-row .state-syndicated") !== null);
    assert.equal(world.social.statuses.length, 1);
    assert.equal(world.social.statuses[0]?.text, "Herons! 🐦 My own words for Mastodon.");
  });

  it("resets to the template: the preview shows the template's text again", async () => {
    const post = await world.server.host.posts?.findByUrl(url);
    await page.goto(`${world.server.url}/syndicate/posts/${post?.id}/preview`);
    const target = page.locator(".preview-target").first();
    assert.equal(await target.locator("textarea").inputValue(), "Herons! 🐦 My own words for Mastodon.");
    await target.getByRole("button", { name: /Back to the template/ }).click();
    await page.locator(".preview-target .flash-success").waitFor();
    assert.equal(await page.locator(".preview-target textarea").inputValue(), template);
    assert.equal(
      await page
        .locator(".preview-target")
        .getByRole("button", { name: /Back to the template/ })
        .count(),
      0,
    );
  });
});

describe("preview and own words without JavaScript", () => {
  let world: SyndicateWorld;
  let page: Page;

  before(async () => {
    world = await startSyndicateWorld();
    await world.publish(template, [world.socialUid]);
    page = await world.signedInPage({ javaScriptEnabled: false });
    await page.goto(`${world.server.url}/syndicate`);
  });
  after(() => world.close());

  it("the row's link opens the preview page; the form refuses over the limit and saves with CSRF", async () => {
    await page.locator(".post-row").first().locator("a.target-preview").first().click();
    await page.waitForURL(/\/preview$/);
    const target = page.locator(".preview-target").first();
    await target.locator("textarea").fill("n".repeat(501));
    await target.getByRole("button", { name: /Save the text/ }).click();
    await page.locator(".preview-target .flash-error").waitFor();
    assert.match(await shownText(page.locator(".preview-target .flash-error")), /501 characters/);
    await page.locator(".preview-target textarea").fill("Short words");
    await page
      .locator(".preview-target")
      .getByRole("button", { name: /Save the text/ })
      .click();
    await page.waitForURL(/\/preview(#.*)?$/);
    assert.match(await shownText(page.locator("main > .flash")), /^Saved: /);
    assert.equal(await page.locator(".preview-target textarea").inputValue(), "Short words");
  });
});
