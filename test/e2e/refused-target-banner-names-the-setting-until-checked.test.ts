// A Mastodon target whose token stops working: the run's first post is refused (once; the rest of
// the run leaves the target alone), and the Syndicate page shows a banner naming the setting that
// holds the token. Once the token works again, "Check now" says the target works and the banner goes.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type SyndicateWorld, shownText, startSyndicateWorld } from "./syndicate-world.ts";

describe("a target that refuses its credentials", () => {
  let world: SyndicateWorld;

  before(async () => {
    // Runs only when asked, so that the test's run is the one that meets the refusal.
    world = await startSyndicateWorld({
      serverConfig: { "@possekit/endpoint-syndicate": { schedule: { enabled: false } } },
    });
  });
  after(() => world.close());

  it("is refused once, named with its setting in a banner, and the banner goes after Check now", async () => {
    // The instance no longer takes the token the server has (as after it was revoked).
    world.other.setAccessToken("a-token-issued-later");
    await world.publish("First post of the run.", [world.otherUid]);
    await world.publish("Second post of the run.", [world.otherUid]);
    const run = await world.syndication().runs.startBatch("manual");
    await run.done;
    const sends = world.other.requests.filter((request) => request.path === "/api/v1/statuses");
    assert.equal(sends.length, 1, "one refusal, then the target is left alone for the run");

    const page = await world.signedInPage();
    await page.goto(`${world.server.url}/syndicate`);
    const banner = page.locator("#target-banners .target-refused");
    assert.equal(await banner.count(), 1);
    const text = await shownText(banner.locator("p"));
    assert.match(text, /^@bob@127\.0\.0\.1:\d+ refused the credentials since /);
    assert.match(text, /Mastodon: 401 The access token is invalid/);
    assert.match(text, /Fix "@possekit\/syndicator-mastodon"\.accessToken, then check it\.$/);
    const row = page.locator(`#targets [data-uid="${world.otherUid}"]`);
    assert.equal(await shownText(row.locator(".health-label")), "Credentials refused");

    // The token works again (re-authorised on the instance): Check now, and the page says so.
    world.other.setAccessToken("other-token");
    await banner.getByRole("button", { name: /^Check @bob@.* now$/ }).click();
    await page
      .locator("#targets-announcer")
      .getByText("Every target that can be checked takes posts.")
      .waitFor();
    assert.equal(await shownText(row.locator(".health-label")), "Works");
    await page.locator("#target-banners .target-refused").waitFor({ state: "detached" });
    assert.equal(world.other.statuses.length, 0, "a check posts nothing");

    // And the same after a reload: the state is the database's, not the page's.
    await page.reload();
    assert.equal(await page.locator("#target-banners .target-refused").count(), 0);
    await page.context().close();
  });
});
