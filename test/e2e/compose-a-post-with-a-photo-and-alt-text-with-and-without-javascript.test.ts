// Decision 0054, in Chromium: the owner writes a post with a photo and its alt text on the compose
// page, with JavaScript (the preview follows the typing, by htmx) and without (a plain multipart form
// and a Preview button). Each lands on the post's results page, is stored with the photo and its alt
// text, and is copied to the Mastodon sandbox once, with the alt text as the media's description.
// Decision 0060: the edit form adds two photos, each with its alt text, in one save (without
// JavaScript from the rows the page shows; with it, one row and "Add another photo"), then removes the
// first; the copy's media follow each save.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { jpegBytes } from "../fakes/photo-server.ts";
import { pngBytes } from "../fakes/png.ts";
import { until } from "../helpers/eventually.ts";
import { slowFirstAnswer } from "./slow-first-answer.ts";
import { type SyndicateWorld, shownText, startSyndicateWorld } from "./syndicate-world.ts";

describe("the compose page in Chromium", () => {
  let world: SyndicateWorld;

  before(async () => {
    world = await startSyndicateWorld({
      serverConfig: { "@possekit/endpoint-syndicate": { schedule: { enabled: true, whenLive: false } } },
    });
  });
  after(() => world.close());

  const photoFile = { name: "cat.jpg", mimeType: "image/jpeg", buffer: Buffer.from(jpegBytes) };

  async function storedPost(resultsUrl: string) {
    const id = /\/syndicate\/posts\/(\d+)$/.exec(resultsUrl)?.[1];
    assert.ok(id, `on the results page, not ${resultsUrl}`);
    const post = await world.server.host.posts?.findById(id);
    assert.ok(post);
    return post;
  }

  for (const javaScriptEnabled of [false, true]) {
    it(`writes a post with a photo and alt text, JavaScript ${javaScriptEnabled ? "on" : "off"}`, async () => {
      const page = await world.signedInPage({ javaScriptEnabled });
      const text = `A cat on the sofa (JavaScript ${javaScriptEnabled ? "on" : "off"})`;
      const alt = `A grey cat asleep, written with JavaScript ${javaScriptEnabled ? "on" : "off"}`;
      await page.goto(`${world.server.url}/syndicate`);
      await page.getByRole("link", { name: "Write" }).click();
      await page.waitForURL(`${world.server.url}/syndicate/compose`);
      await page.getByLabel("Text", { exact: true }).fill(text);
      await page.locator(`input[name="mp-syndicate-to[]"][value="${world.socialUid}"]`).check();
      const preview = page.locator(`#compose-preview [data-uid="${world.socialUid}"] .copy-text`);
      if (javaScriptEnabled) {
        // htmx asks for the preview as the form changes: the copy's text appears without a click.
        await preview.waitFor();
      } else {
        await page.getByRole("button", { name: "Preview" }).click();
        await page.waitForURL(`${world.server.url}/syndicate/compose/preview`);
        // The page comes back with the text kept and the target still ticked.
        assert.equal(await page.getByLabel("Text", { exact: true }).inputValue(), text);
        assert.ok(
          await page.locator(`input[name="mp-syndicate-to[]"][value="${world.socialUid}"]`).isChecked(),
        );
      }
      assert.match(await shownText(preview), /A cat on the sofa/);
      await page.getByLabel("Photo", { exact: true }).setInputFiles(photoFile);
      await page.getByLabel("Alt text of the photo").fill(alt);
      await page.getByLabel("Categories").fill("cats, sofas");
      const before = world.social.statuses.length;
      await page.getByRole("button", { name: "Publish" }).click();
      await page.waitForURL(/\/syndicate\/posts\/\d+$/);
      assert.match(await shownText(page.locator("main > .flash")), /^Published: /);

      const post = await storedPost(page.url());
      assert.equal(post.properties.content, text);
      assert.deepEqual(post.properties.category, ["cats", "sofas"]);
      const [photo] = post.properties.photo as Array<{ url: string; alt?: string }>;
      assert.equal(photo?.alt, alt);

      await until("the copy is out", async () => world.social.statuses.length === before + 1);
      const copy = world.social.statuses.at(-1);
      assert.equal(copy?.media[0]?.description, alt, "the copy's photo carries the alt text");
      assert.match(copy?.text ?? "", /A cat on the sofa/);
      await page.context().close();
    });
  }

  it("edits the post from its row and deletes it after the question; the copy follows each", async () => {
    const page = await world.signedInPage({ javaScriptEnabled: false });
    const copy = world.social.statuses.at(-1);
    assert.ok(copy);
    const edits = () => world.social.requests.filter((r) => r.method === "PUT").length;
    const editsBefore = edits();
    await page.goto(`${world.server.url}/syndicate`);
    const row = page.locator(".post-row").filter({ hasText: "JavaScript on" });
    await row.getByRole("link", { name: /^Edit/ }).click();
    await page.waitForURL(/\/syndicate\/posts\/\d+\/edit$/);
    await page.getByLabel("Text", { exact: true }).fill("A cat on the sofa, edited");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.waitForURL(/\/syndicate\/posts\/\d+$/);
    assert.match(await shownText(page.locator("main > .flash")), /^Saved\./);
    await until("the copy is edited", async () => edits() === editsBefore + 1);
    assert.match(copy.text, /A cat on the sofa, edited/);

    await page.getByRole("link", { name: "Delete", exact: true }).click();
    await page.waitForURL(/\/syndicate\/posts\/\d+\/delete$/);
    assert.equal(await shownText(page.locator("h1")), "Delete this post?");
    assert.equal(copy.deletedAt, null, "asking deletes nothing");
    await page.getByRole("button", { name: "Delete the post" }).click();
    await page.waitForURL(/\/syndicate\/posts\/\d+$/);
    assert.match(await shownText(page.locator("main > .flash")), /^Deleted: /);
    await until("the copy is deleted", async () => copy.deletedAt !== null);
    await page.context().close();
  });

  it("publishes a note with the file input left empty (no JavaScript)", async () => {
    const page = await world.signedInPage({ javaScriptEnabled: false });
    await page.goto(`${world.server.url}/syndicate/compose`);
    await page.getByLabel("Text", { exact: true }).fill("Words alone");
    await page.getByRole("button", { name: "Publish" }).click();
    await page.waitForURL(/\/syndicate\/posts\/\d+$/);
    const post = await storedPost(page.url());
    assert.equal(post.properties.content, "Words alone");
    assert.equal(post.properties.photo, undefined, "an empty file input is no photo");
    await page.context().close();
  });

  it("shows the form's last state when it changed twice while a preview was on its way", async () => {
    // A slow answer (a loaded server, a slow link): the owner types, and while the preview of the text
    // is on its way changes a field and ticks a target. Each later change carries the whole form, so
    // the preview must end on the last one; htmx's default keeps the first change queued and drops
    // the tick, leaving a preview that never shows the ticked target.
    const page = await world.signedInPage({ javaScriptEnabled: true });
    await page.goto(`${world.server.url}/syndicate/compose`);
    const slow = await slowFirstAnswer(page, "**/syndicate/compose/preview");
    await page.getByLabel("Text", { exact: true }).fill("Words written on a slow day");
    await slow.asked;
    await page.getByLabel("Categories").fill("slow");
    await page.locator(`input[name="mp-syndicate-to[]"][value="${world.socialUid}"]`).check();
    slow.release();
    const preview = page.locator(`#compose-preview [data-uid="${world.socialUid}"] .copy-text`);
    await preview.waitFor();
    assert.match(await shownText(preview), /Words written on a slow day/);
    await page.context().close();
  });

  for (const javaScriptEnabled of [false, true]) {
    const mode = `JavaScript ${javaScriptEnabled ? "on" : "off"}`;
    it(`adds two photos with their alt texts in one save, then removes the first (${mode})`, async () => {
      const page = await world.signedInPage({ javaScriptEnabled });
      await page.goto(`${world.server.url}/syndicate/compose`);
      await page.getByLabel("Text", { exact: true }).fill(`Two cats (${mode})`);
      await page.getByLabel("Photo", { exact: true }).setInputFiles(photoFile);
      await page.getByLabel("Alt text of the photo").fill("The first cat");
      await page.locator(`input[name="mp-syndicate-to[]"][value="${world.socialUid}"]`).check();
      const before = world.social.statuses.length;
      await page.getByRole("button", { name: "Publish" }).click();
      await page.waitForURL(/\/syndicate\/posts\/\d+$/);
      await until("the copy is out", async () => world.social.statuses.length === before + 1);
      const copy = world.social.statuses.at(-1);
      assert.ok(copy);
      const edits = () => world.social.requests.filter((r) => r.method === "PUT").length;

      await page.getByRole("link", { name: /^Edit/ }).first().click();
      await page.waitForURL(/\/syndicate\/posts\/\d+\/edit$/);
      assert.equal(await page.locator("img.edit-photo-thumb").getAttribute("alt"), "The first cat");
      const newRows = page.locator("fieldset.new-photo");
      const adder = page.getByRole("button", { name: "Add another photo" });
      if (javaScriptEnabled) {
        assert.equal(await newRows.count(), 1, "one row for a new photo until asked for another");
        await adder.click();
        assert.equal(await newRows.count(), 2);
        assert.equal(
          await page.evaluate(() => document.activeElement?.id),
          "edit-photo-new-2-file",
          "the new row's file input has the focus",
        );
      } else {
        assert.equal(await newRows.count(), 3, "several rows for new photos without JavaScript");
        assert.equal(await adder.count(), 0, "no button that would do nothing");
      }
      const second = newRows.filter({ hasText: "New photo 1" });
      await second.getByLabel("Photo", { exact: true }).setInputFiles({
        name: "second.png",
        mimeType: "image/png",
        buffer: pngBytes(2, 2),
      });
      await second.getByLabel("Alt text of the photo").fill("The second cat");
      const third = newRows.filter({ hasText: "New photo 2" });
      await third.getByLabel("Photo", { exact: true }).setInputFiles({
        name: "third.png",
        mimeType: "image/png",
        buffer: pngBytes(3, 3),
      });
      await third.getByLabel("Alt text of the photo").fill("The third cat");
      let editsBefore = edits();
      await page.getByRole("button", { name: "Save changes" }).click();
      await page.waitForURL(/\/syndicate\/posts\/\d+$/);
      assert.match(await shownText(page.locator("main > .flash")), /^Saved\./);
      const post = await storedPost(page.url());
      assert.deepEqual(
        (post.properties.photo as Array<{ alt?: string }>).map((photo) => photo.alt),
        ["The first cat", "The second cat", "The third cat"],
      );
      await until("the copy is edited", async () => edits() === editsBefore + 1);
      assert.deepEqual(
        copy.media.map((item) => item.description),
        ["The first cat", "The second cat", "The third cat"],
      );

      await page.getByRole("link", { name: /^Edit/ }).first().click();
      await page.waitForURL(/\/syndicate\/posts\/\d+\/edit$/);
      await page.locator("fieldset.edit-photo").first().getByLabel("Remove this photo").check();
      editsBefore = edits();
      await page.getByRole("button", { name: "Save changes" }).click();
      await page.waitForURL(/\/syndicate\/posts\/\d+$/);
      await until("the copy is edited again", async () => edits() === editsBefore + 1);
      assert.deepEqual(
        copy.media.map((item) => item.description),
        ["The second cat", "The third cat"],
      );
      const after = await storedPost(page.url());
      assert.deepEqual(
        (after.properties.photo as Array<{ alt?: string }>).map((photo) => photo.alt),
        ["The second cat", "The third cat"],
      );
      await page.context().close();
    });
  }
});
