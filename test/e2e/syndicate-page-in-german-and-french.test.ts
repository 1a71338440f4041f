// The Syndicate page speaks the browser's language (Accept-Language from the browser's locale), with
// dates and counts formatted for it: German and French besides English. Without seconds German writes
// the hour with two digits (00:25 UTC), with seconds an hour before ten with one (0:25:07 UTC).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type SyndicateWorld, shownText, startSyndicateWorld } from "./syndicate-world.ts";

describe("the Syndicate page in German and in French", () => {
  let world: SyndicateWorld;
  let first: string;

  before(async () => {
    world = await startSyndicateWorld();
    first = await world.publish("Erster Beitrag über das eigene Netz.", [world.socialUid, world.otherUid]);
    await world.publish("Zweiter Beitrag.", [world.socialUid]);
    world.other.setFailure(503, "Service temporarily unavailable");
    await world.syndication().runs.syndicatePost(first, "manual");
  });
  after(() => world.close());

  it("shows the page in German for a browser that asks for German", async () => {
    const page = await world.signedInPage({ locale: "de-DE" });
    await page.goto(`${world.server.url}/status`);
    await page.getByRole("navigation").getByRole("link", { name: "Syndizieren" }).click();
    await page.waitForURL(`${world.server.url}/syndicate`);
    assert.equal(await page.locator("html").getAttribute("lang"), "de");
    assert.equal(await shownText(page.getByRole("heading", { level: 1 })), "Syndizieren");
    assert.equal(
      await shownText(page.locator(".awaiting-count")),
      "2 Beiträge warten auf Syndizierung, die ältesten zuerst.",
    );
    assert.match(await shownText(page.locator("#run-status")), /Gerade läuft keine Syndizierung\./);
    assert.ok(await page.getByRole("button", { name: "Alle syndizieren" }).isVisible());

    const row = page.locator(".post-row").first();
    // One date format on the page, with its time zone.
    assert.match(
      await shownText(row.locator("time")),
      /^\d{1,2}\. [A-Z][a-zä]{2,3}\.? \d{4}, \d{2}:\d{2} UTC$/,
    );
    assert.deepEqual(await row.locator(".target .state-label").allInnerTexts(), [
      "Syndiziert",
      "Fehlgeschlagen, neuer Versuch folgt",
    ]);
    assert.match(
      await shownText(row.locator(".target-note")),
      // This world's schedule is off: the row says what sends the post again.
      /^Wieder fällig in \d+ Minuten? \(\d{1,2}\. [A-Z][a-zä]{2,3}\.? \d{4}, \d{2}:\d{2} UTC\); nichts versucht es von selbst erneut \(der Zeitplan ist aus\)/,
    );
    assert.ok(await row.getByRole("button", { name: /Syndizieren/ }).isVisible());
    assert.match(await shownText(page.locator("#recent-runs")), /Manuell/);
    // Every time on the page in that one format (the recent runs too, once "short").
    const oneFormat = /^\d{1,2}\. [A-Z][a-zä]{2,3}\.? \d{4}, \d{2}:\d{2} UTC$/;
    for (const time of await page.locator("main time").allInnerTexts()) assert.match(time.trim(), oneFormat);

    await row.locator(".post-title a").click();
    await page.waitForURL(/\/syndicate\/posts\/\d+$/);
    assert.equal(await page.getByRole("heading", { name: "Verlauf" }).count(), 1);
    assert.ok(await page.getByRole("button", { name: "Fehlgeschlagene Ziele erneut versuchen" }).isVisible());
    assert.match(
      await shownText(page.locator(".history-table tbody tr").first()),
      /\d{1,2}\. [A-Z][a-zä]{2,3}\.? \d{4}, \d{1,2}:\d{2}:\d{2} UTC/,
    );
    const withSeconds = /^\d{1,2}\. [A-Z][a-zä]{2,3}\.? \d{4}, \d{1,2}:\d{2}:\d{2} UTC$/;
    for (const time of await page.locator("main time").allInnerTexts())
      assert.match(time.trim(), withSeconds);
    await page.context().close();
  });

  it("shows the page in French for a browser that asks for French", async () => {
    const page = await world.signedInPage({ locale: "fr-FR" });
    await page.goto(`${world.server.url}/syndicate`);
    assert.equal(await page.locator("html").getAttribute("lang"), "fr");
    assert.equal(await shownText(page.getByRole("heading", { level: 1 })), "Syndiquer");
    assert.equal(
      await shownText(page.locator(".awaiting-count")),
      "2 articles attendent d’être syndiqués, les plus anciens d’abord.",
    );
    assert.deepEqual(
      await page.locator(".post-row").first().locator(".target .state-label").allInnerTexts(),
      ["Syndiqué", "Échec, nouvel essai prévu"],
    );
    assert.ok(await page.getByRole("button", { name: "Tout syndiquer" }).isVisible());
    await page.context().close();
  });
});
