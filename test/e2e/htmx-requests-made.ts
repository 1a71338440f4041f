import type { Page } from "playwright";

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
