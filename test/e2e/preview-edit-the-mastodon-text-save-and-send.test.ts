// Decision 0026, in the browser: a post row opens the preview of a target; the Mastodon text, edited past
// the limit, is counted live and refused with a message; fixed and saved, it is what the next send
// carries; reset brings back the template's text. Without JavaScript the same is a plain form.
// Decision 0058: one post's thread choice, made in the preview, shows the thread (or the cut text) at
// once and is what the send carries; a connected account's thread settings are saved on the
// Accounts page, with JavaScript and without.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright";
import { launchChromium } from "../helpers/chromium.ts";
import { countHtmxRequests } from "./htmx-requests-made.ts";
import { slowFirstAnswer } from "./slow-first-answer.ts";
import { SCREENSHOTS, type SyndicateWorld, shownText, startSyndicateWorld } from "./syndicate-world.ts";

const template = "A note about herons on the canal.";

/** Three paragraphs of about 400 characters: over Mastodon's 500, a thread of three. */
const long = [1, 2, 3]
  .map(
    (n) =>
      `Part ${n}: ${"Herons on the canal, cormorants on the posts, a kingfisher on the lock gate. ".repeat(5).trim()}`,
  )
  .join("\n\n");

/** Connects a second Mastodon account as the Accounts page would save it (its checks are tested apart). */
async function connectCarol(world: SyndicateWorld): Promise<string> {
  const accounts = world.server.host.accounts;
  assert.ok(accounts);
  const account = await accounts.save({
    type: "mastodon",
    options: { url: world.social.url, user: "carol" },
    display: { name: "@carol@social" },
    secrets: { accessToken: "social-token" },
  });
  return account.id;
}

/** Ticks threads on for Carol on the Accounts page, with at most 4 posts, and saves. */
async function turnOnCarolsThreads(page: Page, world: SyndicateWorld, id: string): Promise<void> {
  await page.goto(`${world.server.url}/syndicate/accounts`);
  const form = page.locator(`#thread-${id}`);
  assert.equal(await form.getByLabel("Send long posts as threads").isChecked(), false);
  await form.getByLabel("Send long posts as threads").check();
  await form.getByLabel(/At most this many posts/).fill("4");
  await form.getByLabel("The post that links to the original").selectOption("first");
  await form.getByRole("button", { name: /Save the thread settings/ }).click();
  await page.waitForURL(/\/syndicate\/accounts#account-/);
  assert.match(
    await shownText(page.locator("main .flash-success").first()),
    /Saved the thread settings of @carol@social/,
  );
  const saved = page.locator(`#thread-${id}`);
  assert.equal(await saved.getByLabel("Send long posts as threads").isChecked(), true);
  assert.equal(await saved.getByLabel(/At most this many posts/).inputValue(), "4");
  const threads = world.server.host.syndicators.find((s) => s.info.uid.endsWith("/@carol"))?.threads;
  assert.deepEqual(threads, { thread: true, threadMax: 4, threadNumbering: false, threadPermalink: "first" });
}

/** One Chromium for the file's worlds (each world a server of its own). */
let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(() => browser?.close());

describe("preview, edit and send the Mastodon text", () => {
  let world: SyndicateWorld;
  let page: Page;
  let url: string;

  before(async () => {
    world = await startSyndicateWorld({ browser });
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

  it("counts the last text typed while a count was on its way", async () => {
    // Each count carries the whole text, so only the newest matters: htmx's default keeps the first
    // change typed during a slow answer queued and drops the later ones, leaving a count of old words.
    const slow = await slowFirstAnswer(page, /\/text\/check\?/);
    const htmx = await countHtmxRequests(page, ".preview-target textarea");
    const textarea = section().locator("textarea");
    await textarea.fill("A first word");
    await slow.asked;
    await textarea.fill("A second");
    await htmx.waitForReady(2);
    await textarea.fill("Three words now");
    await htmx.waitForReady(3);
    slow.release();
    await section()
      .locator(".preview-count", { hasText: /^15 \/ 500/ })
      .waitFor();
    await slow.stop();
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

  it("one post's choice: a thread at once in the preview, and the send carries exactly its posts", async () => {
    const longUrl = await world.publish(long, [world.socialUid]);
    const post = await world.server.host.posts?.findByUrl(longUrl);
    await page.goto(`${world.server.url}/syndicate/posts/${post?.id}/preview`);
    const target = page.locator(".preview-target").first();
    assert.match(await shownText(target.locator(".preview-facts")), /cut to fit/);
    await target.getByLabel("As a thread, for this post").check();
    await target.getByRole("button", { name: /Apply/ }).click();
    const swapped = page.locator(".preview-target .flash-success");
    await swapped.waitFor();
    assert.match(await shownText(swapped), /as a thread/);
    assert.match(await shownText(page.locator(".preview-target").first()), /Sent as a thread of 3 posts/);
    assert.equal(page.url().endsWith("/preview"), true, "htmx swapped the section in place");
    const json = await page.evaluate(async (url) => {
      const response = await fetch(`/syndicate/preview?url=${encodeURIComponent(url)}`, {
        headers: { accept: "application/json" },
      });
      return (await response.json()) as { targets: { preview: { thread: { text: string }[] } }[] };
    }, longUrl);
    const shown = json.targets[0]?.preview.thread.map((p) => p.text) ?? [];
    assert.equal(shown.length, 3);
    const before = world.social.statuses.length;
    await page
      .locator(".preview-target")
      .first()
      .getByRole("button", { name: /Send this/ })
      .click();
    await page
      .locator(".preview-target .flash-success")
      .filter({ hasText: /Sent to/ })
      .waitFor();
    const sent = world.social.statuses.slice(before);
    assert.deepEqual(
      sent.map((status) => status.text),
      shown,
      "what the preview showed is what was sent",
    );
    for (const [index, status] of sent.slice(1).entries()) assert.equal(status.inReplyToId, sent[index]?.id);
  });

  it("a connected account's thread settings are saved on the Accounts page", async () => {
    await turnOnCarolsThreads(page, world, await connectCarol(world));
  });
});

describe("preview and own words without JavaScript", () => {
  let world: SyndicateWorld;
  let page: Page;

  before(async () => {
    world = await startSyndicateWorld({ browser });
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

  it("one post's choice is a plain form: the page comes back with the thread, then with the cut text", async () => {
    const longUrl = await world.publish(long, [world.socialUid]);
    const post = await world.server.host.posts?.findByUrl(longUrl);
    await page.goto(`${world.server.url}/syndicate/posts/${post?.id}/preview`);
    const section = page.locator(".preview-target").first();
    await section.getByLabel("As a thread, for this post").check();
    await section.getByRole("button", { name: /Apply/ }).click();
    await page.waitForURL(/\/preview(#.*)?$/);
    assert.match(await shownText(page.locator("main > .flash")), /as a thread/);
    assert.match(await shownText(page.locator(".preview-target").first()), /Sent as a thread of 3 posts/);
    await page
      .locator(".preview-target")
      .first()
      .getByLabel("As one post, cut and linked, for this post")
      .check();
    await page.locator(".preview-target").first().getByRole("button", { name: /Apply/ }).click();
    await page.waitForURL(/\/preview(#.*)?$/);
    const cut = page.locator(".preview-target").first();
    assert.doesNotMatch(await shownText(cut), /Sent as a thread/);
    assert.match(await shownText(cut.locator(".preview-facts")), /cut to fit/);
    assert.equal(await cut.getByLabel("As one post, cut and linked, for this post").isChecked(), true);
  });

  it("a connected account's thread settings are saved on the Accounts page without JavaScript", async () => {
    await turnOnCarolsThreads(page, world, await connectCarol(world));
  });
});
