import type { Page } from "playwright";

/**
 * Holds the page's first request to `url` (a Playwright URL pattern) until `release()`: a slow answer,
 * so that a test can change the form while it is on its way. `asked` resolves once that first request
 * has left the page; the later ones go through at once, until `stop()` ends the holding.
 *
 * @example
 * const slow = await slowFirstAnswer(page, "**\/compose/preview");
 * await textarea.fill("words");
 * await slow.asked;
 * await checkbox.check();
 * slow.release();
 */
export async function slowFirstAnswer(page: Page, url: string | RegExp) {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let arrived = () => {};
  const asked = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  let count = 0;
  await page.route(url, async (route) => {
    count += 1;
    if (count === 1) {
      arrived();
      await released;
    }
    await route.continue();
  });
  return { asked, release, stop: () => page.unroute(url) };
}
