// htmx starts with the document (views/layout.njk loads it last in the body, not deferred): by the
// page's load event every element that asks the server is at work. Loaded deferred, it started on a
// timer, at times after the load event, so a click made as the page loaded went without it. The
// page's clock stands still here: no timer fires, so htmx must have started without one.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type SyndicateWorld, startSyndicateWorld } from "./syndicate-world.ts";

describe("htmx on the syndication pages", () => {
  let world: SyndicateWorld;
  before(async () => {
    world = await startSyndicateWorld();
    await world.publish("A post to list.", [world.socialUid]);
  });
  after(() => world.close());

  for (const path of ["/syndicate", "/syndicate/compose"]) {
    it(`is at work on ${path} once it has loaded, with no timer fired`, async () => {
      const page = await world.signedInPageWithItsClockStill(path);
      const elements = await page.evaluate(() => {
        const asking = Array.from(document.querySelectorAll("[hx-get], [hx-post]"));
        return {
          asking: asking.length,
          idle: asking.filter((element) => !element.hasAttribute("data-htmx-powered")).length,
        };
      });
      assert.ok(elements.asking > 0, `${path} has elements that ask the server`);
      assert.equal(elements.idle, 0, "every one of them is at work");
      await page.context().close();
    });
  }
});
