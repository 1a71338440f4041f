// Decision 0046, in the browser: the preview publishes what it shows. Words typed into a row's
// preview go out with the row's Syndicate button (they were dropped); the preview shows the copy as
// the service will (links, hashtags, photos with their alt text, the count against the limit) and
// follows the typing; "Send this" sends exactly the text shown, with and without JavaScript; a live
// copy's Save says that it edits the copy; replacing a preview with unsaved words asks first.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright";
import { SCREENSHOTS, type SyndicateWorld, shownText, startSyndicateWorld } from "./syndicate-world.ts";

const rowOf = (page: Page, text: string) => page.locator(".post-row", { hasText: text });

async function publishJson(world: SyndicateWorld, properties: Record<string, unknown>): Promise<string> {
  const token = await world.server.token("create update");
  const response = await fetch(`${world.server.url}/micropub`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ type: ["h-entry"], properties }),
  });
  const location = response.headers.get("location");
  if (response.status !== 201 || !location) throw new Error(`Micropub answered ${response.status}`);
  return location;
}

describe("the preview sends what it shows (JavaScript)", () => {
  let world: SyndicateWorld;
  let page: Page;

  before(async () => {
    world = await startSyndicateWorld();
    await world.publish("Herons on the canal this morning.", [world.socialUid]);
    await publishJson(world, {
      content: ["Kingfisher at the lock #birds https://birds.example/kingfishers/at-the-lock-gates"],
      photo: [{ value: "https://photos.example/kingfisher.jpg", alt: "A kingfisher on a rusty lock gate" }],
      "mp-syndicate-to": [world.otherUid],
    });
    page = await world.signedInPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${world.server.url}/syndicate`);
  });
  after(() => world.close());

  it("words typed into the row's preview go out with the row's Syndicate button", async () => {
    const row = rowOf(page, "Herons on the canal");
    await row.locator("a.target-preview").first().click();
    await row.locator(".preview-target textarea").waitFor();
    await row.locator(".preview-target textarea").fill("Herons! My own words, never saved by hand.");
    await row.getByRole("button", { name: /^Syndicate/ }).click();
    await page.waitForFunction(() => document.querySelector(".post-row .state-syndicated") !== null);
    assert.deepEqual(
      world.social.statuses.map((status) => status.text),
      ["Herons! My own words, never saved by hand."],
    );
  });

  it("shows the copy as the service will: link, hashtag, photo with its alt text, the count", async () => {
    const row = rowOf(page, "Kingfisher at the lock");
    await row.locator("a.target-preview").first().click();
    const shown = row.locator(".preview-shown");
    await shown.waitFor();
    const link = shown.locator(".copy-text a.copy-link");
    assert.equal(await link.getAttribute("href"), "https://birds.example/kingfishers/at-the-lock-gates");
    assert.equal(await link.textContent(), "birds.example/kingfishers/at-t…");
    assert.equal(await shown.locator(".copy-tag").textContent(), "#birds");
    assert.equal(await shown.locator("img[alt='A kingfisher on a rusty lock gate']").count(), 1);
    assert.match(await shownText(shown.locator("figcaption")), /A kingfisher on a rusty lock gate/);
    assert.match(await shownText(row.locator(".preview-count")), /^\d+ \/ 500/);
    await page.screenshot({ path: join(SCREENSHOTS, "preview-in-row-1280.png"), fullPage: false });

    await row.locator(".preview-target textarea").fill("Now with #kingfishers and @bob@other.example");
    await shown.locator(".copy-tag", { hasText: "#kingfishers" }).waitFor();
    assert.equal(await shown.locator(".copy-mention").textContent(), "@bob@other.example");
  });

  it("asks before another preview replaces unsaved words, and keeps them when told to", async () => {
    const row = rowOf(page, "Kingfisher at the lock");
    let asked = "";
    page.once("dialog", (dialog) => {
      asked = dialog.message();
      void dialog.dismiss();
    });
    await row.locator("a.target-preview").first().click();
    assert.match(asked, /not saved/);
    assert.equal(
      await row.locator(".preview-target textarea").inputValue(),
      "Now with #kingfishers and @bob@other.example",
    );
  });

  it("Send this on the preview page sends exactly the text shown; then Save says it edits the live copy", async () => {
    const id = (await rowOf(page, "Kingfisher at the lock").getAttribute("id"))?.replace("post-", "");
    const otherPage = await world.signedInPage();
    // The world's other account refuses photos fetched from the Internet: a text-only post.
    await world.publish("A cormorant drying its wings.", [world.otherUid]);
    await otherPage.goto(`${world.server.url}/syndicate`);
    const cormorant = rowOf(otherPage, "A cormorant");
    await cormorant.locator("h3 a").click();
    await otherPage.getByRole("link", { name: /Preview and change/ }).click();
    const section = otherPage.locator(".preview-target").first();
    await section.locator("textarea").fill("Cormorant, wings out, exactly this.");
    await section.getByRole("button", { name: /^Send this/ }).click();
    await section.locator(".flash-success").waitFor();
    assert.match(await shownText(section.locator(".flash-success")), /^Sent to @bob@127\.0\.0\.1:\d+\. http/);
    assert.deepEqual(
      world.other.statuses.map((status) => status.text),
      ["Cormorant, wings out, exactly this."],
    );
    assert.match(await shownText(section.locator(".preview-live")), /live on .*saving edits it there/);
    assert.equal(await section.getByRole("button", { name: /^Send this/ }).count(), 0, "no second send");
    await section.getByRole("button", { name: /Save and edit the live copy/ }).waitFor();
    // "Sent:" and the copy's URL, on a phone: the URL wraps, the page does not scroll sideways.
    await otherPage.setViewportSize({ width: 360, height: 800 });
    await otherPage.reload();
    await otherPage.locator(".preview-note a").first().waitFor();
    assert.equal(
      await otherPage.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      ),
      0,
      "the sent copy's link does not widen the page",
    );
    assert.ok(id);
    await otherPage.context().close();
  });

  it("fits the preview page and an open row preview on a 360 px phone", async () => {
    const row = rowOf(page, "Kingfisher at the lock");
    const href = await row.locator("h3 a").getAttribute("href");
    await page.goto(`${world.server.url}${href}/preview`);
    await page.locator(".preview-shown img").waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, "preview-1280.png"), fullPage: true });
    await page.setViewportSize({ width: 360, height: 800 });
    const sideways = () =>
      page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.equal(await sideways(), 0, "the preview page does not scroll sideways");
    await page.screenshot({ path: join(SCREENSHOTS, "preview-360.png"), fullPage: true });
    await page.goto(`${world.server.url}/syndicate`);
    await rowOf(page, "Kingfisher at the lock").locator("a.target-preview").first().click();
    await page.locator(".post-preview .preview-shown").waitFor();
    assert.equal(await sideways(), 0, "a row's open preview does not scroll sideways");
    await page.screenshot({ path: join(SCREENSHOTS, "syndicate-preview-in-row-360.png"), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: join(SCREENSHOTS, "syndicate-1280.png"), fullPage: true });
  });

  it("refuses the row's send when the typed words are over the limit, and sends nothing", async () => {
    await world.publish("Grebes, courting.", [world.socialUid]);
    await page.goto(`${world.server.url}/syndicate`);
    const row = rowOf(page, "Grebes, courting");
    await row.locator("a.target-preview").first().click();
    await row.locator(".preview-target textarea").fill("g".repeat(501));
    const before = world.social.statuses.length;
    await row.getByRole("button", { name: /^Syndicate/ }).click();
    const refusal = page.locator("#run-announcer .flash-error");
    await refusal.waitFor();
    assert.match(await shownText(refusal), /^Nothing was sent\. Not saved: the text has 501 characters/);
    assert.equal(world.social.statuses.length, before);
  });
});

describe("the preview sends what it shows (no JavaScript)", () => {
  let world: SyndicateWorld;
  let page: Page;

  before(async () => {
    world = await startSyndicateWorld();
    await world.publish("Swifts over the roofs.", [world.socialUid]);
    page = await world.signedInPage({ javaScriptEnabled: false });
  });
  after(() => world.close());

  it("the preview page's Send this saves the typed words with the send", async () => {
    await page.goto(`${world.server.url}/syndicate`);
    await page.locator(".post-row").first().locator("a.target-preview").first().click();
    await page.waitForURL(/\/preview$/);
    const target = page.locator(".preview-target").first();
    assert.match(await shownText(target.locator(".copy-text")), /^Swifts over the roofs\.$/);
    await target.locator("textarea").fill("Swifts, screaming, sent without JavaScript.");
    await target.getByRole("button", { name: /^Send this/ }).click();
    await page.waitForURL(/\/preview(#.*)?$/);
    assert.match(await shownText(page.locator("main > .flash")), /^Sent to @alice@127\.0\.0\.1:\d+\.$/);
    assert.match(await shownText(target.locator(".preview-note").first()), /^Sent: http/);
    assert.deepEqual(
      world.social.statuses.map((status) => status.text),
      ["Swifts, screaming, sent without JavaScript."],
    );
  });
});
