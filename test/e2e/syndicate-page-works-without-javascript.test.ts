// Progressive enhancement (decision 0011): with JavaScript off, the same buttons are plain forms that post
// and come back to the page they were on with the outcome as a flash message. Also the paging of a
// long backlog: 50 posts a page, oldest first.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright";
import { type SyndicateWorld, shownText, startSyndicateWorld } from "./syndicate-world.ts";

describe("the Syndicate page without JavaScript", () => {
  let world: SyndicateWorld;
  let page: Page;
  let first: string;

  before(async () => {
    world = await startSyndicateWorld();
    first = await world.publish("The first note, sent to both accounts.", [world.socialUid, world.otherUid]);
    await world.publish("The second note.", [world.socialUid]);
    world.other.setFailure(503, "Service temporarily unavailable");
    page = await world.signedInPage({ javaScriptEnabled: false });
    await page.goto(`${world.server.url}/syndicate`);
  });
  after(() => world.close());

  it("posts a row's Syndicate form and comes back to the page with the outcome", async () => {
    await page
      .locator(".post-row")
      .first()
      .getByRole("button", { name: /Syndicate/ })
      .click();
    await page.waitForURL(`${world.server.url}/syndicate`);
    const flash = page.locator("main > .flash[role=status]");
    assert.equal(
      await shownText(flash),
      `${first} reached some of its targets; the others failed and are tried again later.`,
    );
    // Something still needs attention (a target waits): a warning, never a success.
    assert.ok(await flash.evaluate((element) => element.classList.contains("flash-warning")));
    const row = page.locator(".post-row").first();
    assert.deepEqual(await row.locator(".target .state-label").allInnerTexts(), [
      "Syndicated",
      "Failed, waiting to retry",
    ]);
    assert.equal(await row.locator("a.target-copy").getAttribute("href"), world.social.statuses[0]?.url);
  });

  it("posts 'Syndicate all' and comes back with the counts of the run", async () => {
    await page.getByRole("button", { name: "Syndicate all" }).click();
    await page.waitForURL(`${world.server.url}/syndicate`);
    // The post whose other target waits was skipped: counted, shown as a warning, with a link.
    const flash = page.locator("main > .flash");
    assert.equal(
      await shownText(flash),
      "2 posts processed: 1 syndicated, 1 skipped (waiting or refused). Show the posts that need attention",
    );
    assert.ok(await flash.evaluate((element) => element.classList.contains("flash-warning")));
    assert.equal(
      await flash.getByRole("link", { name: "Show the posts that need attention" }).getAttribute("href"),
      "/syndicate?state=attention",
    );
    assert.equal(world.social.statuses.length, 2);
  });

  it("retries the failed targets from the results page as a plain form", async () => {
    world.other.clearBehaviour();
    await page.locator(".post-row").first().locator(".post-title a").click();
    await page.getByRole("button", { name: "Retry failed targets" }).click();
    await page.waitForURL(/\/syndicate\/posts\/\d+$/);
    assert.equal(
      await shownText(page.locator("main > .flash")),
      `${first} was syndicated to every target it names.`,
    );
    assert.deepEqual(await page.locator(".result-target .state-label").allInnerTexts(), [
      "Syndicated",
      "Syndicated",
    ]);
  });

  it("pages a long backlog 50 posts at a time, oldest first, and brings a form back to its page", async () => {
    const posts = world.server.host.posts;
    assert.ok(posts);
    for (let index = 1; index <= 51; index += 1) {
      await posts.create({
        properties: { type: "entry", content: `Backlog note ${index}`, "mp-syndicate-to": [world.socialUid] },
      });
    }
    await page.goto(`${world.server.url}/syndicate`);
    assert.match(await shownText(page.locator(".awaiting-count")), /51 posts await syndication/);
    assert.equal(await page.locator(".post-row").count(), 50);
    assert.equal(await shownText(page.locator(".post-row .post-title").first()), "Backlog note 1");
    assert.equal(
      await shownText(page.getByRole("navigation", { name: "Pages of awaiting posts" })),
      "Page 1 of 2 Next page",
    );

    await page.getByRole("link", { name: "Next page" }).click();
    await page.waitForURL(`${world.server.url}/syndicate?page=2`);
    assert.deepEqual(await page.locator(".post-row .post-title").allInnerTexts(), ["Backlog note 51"]);
    await page
      .locator(".post-row")
      .getByRole("button", { name: /Syndicate/ })
      .click();
    await page.waitForURL(`${world.server.url}/syndicate?page=2`);
    assert.match(await shownText(page.locator("main > .flash")), /was syndicated to every target it names/);
  });

  it("finds a post's results page by the post's address, and says when there is no such post", async () => {
    await page.goto(`${world.server.url}/syndicate`);
    await page.getByLabel("Address of a published post").fill(first);
    await page.getByRole("button", { name: "Show results" }).click();
    await page.waitForURL(/\/syndicate\/posts\/\d+$/);
    assert.equal(
      await shownText(page.getByRole("heading", { level: 1 })),
      "The first note, sent to both accounts.",
    );

    const missing = `${world.server.url}/notes/never-published/`;
    const response = await page.goto(
      `${world.server.url}/syndicate/posts?url=${encodeURIComponent(missing)}`,
    );
    assert.equal(response?.status(), 404);
    assert.match(await shownText(page.locator("main")), new RegExp(`There is no post at ${missing}`));
    for (const id of ["999999", "not-a-number"]) {
      const notFound = await page.goto(`${world.server.url}/syndicate/posts/${id}`);
      assert.equal(notFound?.status(), 404);
      assert.match(await shownText(page.locator("main")), /There is no post with this id/);
    }
  });

  it("refuses a retry from a token without the update scope", async () => {
    const token = await world.server.token("create");
    const response = await fetch(`${world.server.url}/syndicate/posts/1/retry`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
    });
    assert.equal(response.status, 403);
    assert.equal(((await response.json()) as { error: string }).error, "insufficient_scope");
  });
});
