// The Status page on a 360 px phone does not scroll sideways, and Revoke is a quiet button that asks
// before it revokes, with and without JavaScript; New token makes a token with the scopes ticked,
// shown once, without JavaScript too.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SCREENSHOTS, type SyndicateWorld, shownText, startSyndicateWorld } from "./syndicate-world.ts";

describe("Status on a phone; Revoke asks first", () => {
  let world: SyndicateWorld;
  before(async () => {
    world = await startSyndicateWorld({
      serverConfig: { "@possekit/endpoint-syndicate": { schedule: { enabled: false } } },
    });
    // Two tokens a Micropub client used, one for each test: listed with their Revoke buttons.
    for (const _ of [1, 2]) {
      const token = await world.server.token("create update");
      await fetch(`${world.server.url}/micropub?q=config`, { headers: { authorization: `Bearer ${token}` } });
    }
  });
  after(() => world.close());

  for (const javaScriptEnabled of [true, false]) {
    it(`fits 360 px, and revokes only once confirmed (JavaScript ${javaScriptEnabled ? "on" : "off"})`, async () => {
      const page = await world.signedInPage({ javaScriptEnabled, viewport: { width: 360, height: 800 } });
      await page.goto(`${world.server.url}/status`);
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.equal(overflow, 0, "no sideways scroll");
      if (javaScriptEnabled)
        await page.screenshot({ path: join(SCREENSHOTS, "status-360.png"), fullPage: true });

      const row = page.locator("[data-token-id]:has(.revoke)", { hasText: "test" }).first();
      const revoke = row.locator(".revoke summary");
      const style = await revoke.evaluate((element) => getComputedStyle(element).backgroundColor);
      assert.match(style, /rgba\(0, 0, 0, 0\)|transparent/, "Revoke is not primary-styled");
      const box = await revoke.boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= 360, "Revoke is on screen");

      await revoke.click();
      const confirm = row.getByRole("button", { name: /^Yes, revoke/ });
      await confirm.waitFor();
      assert.match(await shownText(row.locator(".revoke")), /stops working at once/);
      assert.equal(await page.locator("main > .flash").count(), 0, "nothing revoked by the first click");
      await confirm.click();
      await page.locator("main > .flash-success").waitFor();
      assert.match(await shownText(page.locator("main > .flash-success")), /are revoked/);
      await page.context().close();
    });
  }

  it("makes a token with the scopes ticked, shown once, without JavaScript", async () => {
    const page = await world.signedInPage({
      javaScriptEnabled: false,
      viewport: { width: 360, height: 800 },
    });
    await page.goto(`${world.server.url}/status`);
    assert.equal(await page.locator("#access-token").count(), 0, "seeing the page makes no token");
    await page.getByRole("checkbox", { name: /delete/ }).check();
    await page.getByRole("checkbox", { name: /update/ }).uncheck();
    await page.getByLabel("Valid for").selectOption("7");
    await page.getByRole("button", { name: "Make the token" }).click();
    const token = await page.locator("#access-token").inputValue();
    assert.match(await shownText(page.locator("[data-new-token]")), /scope: create delete, valid for 7 days/);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    assert.equal(overflow, 0, "no sideways scroll with the new token shown");
    const micropub = await fetch(`${world.server.url}/micropub?q=config`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(micropub.status, 200, "the token works");
    await page.goto(`${world.server.url}/status`);
    assert.equal(await page.locator("#access-token").count(), 0, "not shown again");
    assert.ok(!(await page.content()).includes(token));
    await page.context().close();
  });
});
