// How possekit introduces itself to the sites whose feeds it reads: a name a site owner can search,
// and the user's own site, so that they know whose server asks.

/**
 * @example
 * feedUserAgent("https://example.com/"); // "possekit-feed-fetcher/1 (+https://example.com/)"
 */
export function feedUserAgent(ownSite?: string): string {
  return ownSite ? `possekit-feed-fetcher/1 (+${ownSite})` : "possekit-feed-fetcher/1";
}
