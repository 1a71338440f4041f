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

/**
 * How many requests the elements matching `selector` have made ready since this was called, sent or
 * waiting in htmx's queue (`htmx:config:request` comes before an element's queue decides):
 * `waitForReady(n)` waits until n were, so that a test knows a delayed trigger has fired without
 * sleeping through its delay. Only those elements: the page's own polls make requests too.
 */
export async function countHtmxRequests(page: Page, selector: string) {
  await page.evaluate((selector) => {
    const counted = window as unknown as { possekitReady?: number };
    counted.possekitReady = 0;
    document.addEventListener("htmx:config:request", (event) => {
      if (event.target instanceof Element && event.target.matches(selector))
        counted.possekitReady = (counted.possekitReady ?? 0) + 1;
    });
  }, selector);
  return {
    waitForReady: (n: number) =>
      page.waitForFunction(
        (n) => ((window as unknown as { possekitReady?: number }).possekitReady ?? 0) >= n,
        n,
      ),
  };
}
