// Why a well-formed document whose root element is a feed's (<rss>, <rdf:RDF>, <feed>) still gives
// no feed: the element the format puts its entries in is missing, or holds nothing feedsmith can
// read. Said in the user's words, naming the element, so that the site's owner knows what to fix.
import { FeedParseError } from "./feed-parse-error.ts";

/** The error for a feed root without a feed; `xml` is the document (well-formed). */
export function unreadableFeed(root: "rss" | "rdf" | "atom", xml: string): FeedParseError {
  const has = (name: string) => new RegExp(`<(?:[\\w.-]+:)?${name}[\\s/>]`).test(xml);
  const why =
    root === "rss"
      ? has("channel")
        ? "its <channel> has nothing of a feed in it (no title, link, description or item)"
        : "it has no <channel>, the element that holds an RSS feed's title and items"
      : root === "rdf"
        ? has("channel") || has("item")
          ? "its <channel> and <item> elements have nothing of a feed in them (no title, link or description)"
          : "it has no <channel> or <item> of RSS 1.0, so it is RDF data rather than a feed"
        : "it has none of Atom's elements (<title>, <id>, <updated>, <entry>)";
  const name = { rss: "<rss>", rdf: "<rdf:RDF>", atom: "<feed>" }[root];
  return new FeedParseError("not-a-feed", `The document's root element is ${name}, but ${why}.`);
}
