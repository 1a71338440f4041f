// Why an HTML page without an h-feed is not a feed, in words the user can act on. A proxy's or
// server's error page (502 Bad Gateway, 404 Not Found, a bot check) is told apart from the site's
// own page: the first passes by itself, the second needs another address, which the page often
// names in a <link rel="alternate"> that the message then gives.
import { htmlToText } from "../../../contract/plain-text.ts";
import { FeedParseError } from "./feed-parse-error.ts";

const ERROR_WORDS =
  /\b(?:[45]\d\d|error|not found|bad gateway|service unavailable|gateway time-?out|forbidden|access denied|unauthori[sz]ed|too many requests|maintenance|temporarily unavailable|just a moment|attention required|page not found)\b/i;

function elementText(html: string, tag: string): string | undefined {
  const match = new RegExp(`<${tag}[^>]*>([\\s\\S]*?)</${tag}>`, "i").exec(html);
  if (!match?.[1]) return undefined;
  const text = htmlToText(match[1], { links: "drop" }).replace(/\s+/g, " ").trim();
  return text ? text.slice(0, 100) : undefined;
}

/** The error that says what the page is, given the feed links it names (absolute). */
export function describeHtmlPage(html: string, url: string, feedLinks: readonly string[]): FeedParseError {
  const heading = elementText(html, "title") ?? elementText(html, "h1");
  if (heading && ERROR_WORDS.test(heading)) {
    return new FeedParseError(
      "error-page",
      `The address returned an error page ("${heading}") instead of the feed; possekit tries again at the next fetch.`,
    );
  }
  const named = feedLinks[0]
    ? ` The page names a feed at ${feedLinks[0]}: use that address.`
    : " Give the address of the site's RSS, Atom or JSON feed, or mark its posts up with h-entry.";
  return new FeedParseError(
    "html-without-h-feed",
    `The page at ${url} is HTML without an h-feed or h-entry, so it has no posts to read.${named}`,
  );
}
