// Decision 0051, in the browser: the page says what to do next and never claims what is not so.
// A first start (no target, no post) lists the next steps instead of a green "all done", with no
// filter bar and a disabled "Syndicate all" that says why (there is nothing to send); "Retry
// everything" comes with the live summary of the run that needs it; a rate-limited target's posts
// say that it holds them and until when, under a banner, not "Pending" or "Waiting … to be live".
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright";
import { launchChromium } from "../helpers/chromium.ts";
import { SCREENSHOTS, type SyndicateWorld, shownText, startSyndicateWorld } from "./syndicate-world.ts";

const quiet = { "@possekit/endpoint-syndicate": { schedule: { enabled: false } } };

/** One Chromium for the file's worlds (each world a server of its own). */
let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(() => browser?.close());

describe("a first start: no target, no post", () => {
  let world: SyndicateWorld;
  before(async () => {
    world = await startSyndicateWorld({ targets: false, serverConfig: quiet, browser });
  });
  after(() => world.close());

  it("says what to do next, and nothing in green", async () => {
    const page = await world.signedInPage({ viewport: { width: 360, height: 800 } });
    await page.goto(`${world.server.url}/syndicate`);
    const main = await shownText(page.locator("main"));
    assert.doesNotMatch(main, /every published post has reached/);
    assert.equal(await page.locator(".empty-state").count(), 0);
    const steps = page.locator(".next-steps li");
    assert.equal(await steps.count(), 2);
    assert.match(await shownText(steps.nth(0)), /^Configure a target/);
    assert.match(await shownText(steps.nth(1)), new RegExp(`${world.server.url}/micropub`));
    assert.equal(
      await steps
        .nth(1)
        .getByRole("link", { name: /access token/ })
        .getAttribute("href"),
      "/status",
    );
    const syndicateAll = page.getByRole("button", { name: "Syndicate all" });
    assert.equal(await syndicateAll.isDisabled(), true, "nothing to send");
    assert.equal(
      await syndicateAll.evaluate((button) =>
        document.getElementById(button.getAttribute("aria-describedby") ?? "")?.textContent?.trim(),
      ),
      "Nothing to send yet: the steps below say what is missing.",
    );
    assert.equal(await page.locator("form.filters").count(), 0, "no filter bar with nothing to filter");
    await page.screenshot({ path: join(SCREENSHOTS, "syndicate-first-start-360.png"), fullPage: true });
    await page.context().close();
  });
});

describe("retry and held posts", () => {
  let world: SyndicateWorld;
  before(async () => {
    world = await startSyndicateWorld({ serverConfig: quiet, browser });
  });
  after(() => world.close());

  it("offers Retry everything with the live summary of the run that needs it", async () => {
    world.other.setAccessToken("a-token-issued-later");
    await world.publish("Refused first.", [world.otherUid]);
    await world.publish("Refused second.", [world.otherUid]);
    const page = await world.signedInPage();
    await page.goto(`${world.server.url}/syndicate`);
    const retryAll = page.getByRole("button", { name: "Retry everything that needs attention" });
    assert.equal(await retryAll.count(), 0, "nothing needs attention yet");
    await page.getByRole("button", { name: "Syndicate all" }).click();
    await page
      .locator("#run-announcer")
      .getByText(/^2 posts processed/)
      .waitFor();
    await retryAll.waitFor();
    world.other.setAccessToken("other-token");
    await retryAll.click();
    await page
      .locator("#run-announcer")
      .getByText(/^2 posts processed: 2 syndicated/)
      .waitFor();
    assert.equal(world.other.statuses.length, 2);
    await page.context().close();
  });

  it("a rate-limited target's posts say it holds them and until when, under a banner", async () => {
    const reset = new Date(Date.now() + 60 * 60_000);
    world.social.rateLimit(reset);
    for (const text of ["Held one.", "Held two.", "Held three."])
      await world.publish(text, [world.socialUid]);
    await (await world.syndication().runs.startBatch("manual")).done;
    const page = await world.signedInPage();
    await page.goto(`${world.server.url}/syndicate`);
    const banner = page.locator(".target-rate-limited");
    assert.match(
      await shownText(banner),
      /asked us to slow down \(HTTP 429.*go out by themselves in (an hour|60 minutes)/,
    );
    const rows = page.locator(".post-row", { hasText: "Held " });
    assert.equal(await rows.count(), 3);
    // The post that met the 429 is rate limited until the reset; the others were not tried: paused.
    let held = 0;
    for (const row of await rows.all()) {
      assert.doesNotMatch(await shownText(row), /Pending|to be live/);
      const target = await shownText(row.locator(".target"));
      if (target.includes("Paused")) {
        held++;
        assert.match(target, /Paused: \S+ is rate limited, until /);
      } else assert.match(target, /Rate limited.*next try in (an hour|60 minutes)/);
    }
    assert.equal(held, 2);
    await page.context().close();
  });
});
