// Decision 0054 in Chromium: the results page shows what each copy said; "Remove this copy" asks
// first (a disclosure, so without JavaScript too), then deletes only that copy and the target reads
// "Removed by you"; "Send again" without JavaScript makes a new copy. No axe-core violation in
// English, German and French at 1280 and 360 px, with the disclosures open.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright";
import { type SyndicateWorld, shownText, startSyndicateWorld } from "./syndicate-world.ts";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

async function violations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const found = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)",
  )) as Array<{ id: string; impact: string | null; help: string; nodes: { target: string[] }[] }>;
  return found.map(
    (v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`,
  );
}

describe("undo one copy from the results page", () => {
  let world: SyndicateWorld;
  let postId: string;

  before(async () => {
    world = await startSyndicateWorld();
    const url = await world.publish("A note on two accounts.", [world.socialUid, world.otherUid]);
    await world.syndication().runs.syndicatePost(url, "manual");
    const post = await world.server.host.posts?.findByUrl(url);
    assert.ok(post);
    postId = post.id;
    assert.equal(world.social.statuses.length, 1);
    assert.equal(world.other.statuses.length, 1);
  });
  after(() => world.close());

  it("shows what was sent, asks first, removes only that copy, and sends again without JavaScript", async () => {
    const page = await world.signedInPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${world.server.url}/syndicate/posts/${postId}`);
    await page.getByText("What was sent").first().click();
    assert.match(await shownText(page.locator(".sent-text").first()), /^A note on two accounts\./);

    const other = page.locator(".result-target").filter({ hasText: "@bob@" });
    await other.getByText("Remove this copy").click();
    await other.getByRole("button", { name: /Yes, delete the copy on @bob@/ }).click();
    await page
      .locator("#post-announcer")
      .getByText(/The copy on @bob@.* was deleted/)
      .waitFor();
    // The target's own state comes first in its card; its copy's deletion is listed under it.
    assert.equal(await shownText(other.locator(".state-label").first()), "Removed by you");
    assert.ok(world.other.statuses[0]?.deletedAt, "the copy is deleted on its service");
    assert.equal(world.social.statuses[0]?.deletedAt, null, "the other copy stays");
    await page.context().close();

    const noScript = await world.signedInPage({
      javaScriptEnabled: false,
      viewport: { width: 360, height: 800 },
    });
    await noScript.goto(`${world.server.url}/syndicate/posts/${postId}`);
    await noScript
      .locator(".result-target")
      .filter({ hasText: "@bob@" })
      .getByRole("button", { name: "Send again" })
      .click();
    await noScript.waitForURL(new RegExp(`/syndicate/posts/${postId}$`));
    assert.equal(world.other.statuses.length, 2, "a new copy");
    assert.equal(
      await shownText(
        noScript.locator(".result-target").filter({ hasText: "@bob@" }).locator(".state-label").first(),
      ),
      "Syndicated",
    );
    await noScript.context().close();
  });

  for (const locale of ["en", "de", "fr"]) {
    for (const width of [1280, 360]) {
      it(`has no violation in ${locale} at ${width} px`, async () => {
        const page = await world.signedInPage({ locale, viewport: { width, height: 800 } });
        await page.goto(`${world.server.url}/syndicate/posts/${postId}`);
        await page.evaluate(() => {
          document.querySelectorAll("details").forEach((details) => {
            details.open = true;
          });
        });
        assert.deepEqual(await violations(page), []);
        const scrolls = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
        assert.equal(scrolls, false, "the page does not scroll sideways");
        await page.context().close();
      });
    }
  }
});
