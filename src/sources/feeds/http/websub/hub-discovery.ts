// Where a feed says it is pushed from (W3C WebSub 4, Discovery): the HTTP `Link` header first, then
// the document: Atom/RSS `<link rel="hub">` and `rel="self"` (`atom:link` in RSS), an HTML page's
// `<link>`, JSON Feed's `hubs` and `feed_url`. The feed source calls this on each fetched answer.
import { parseLinkHeader, type WebLink } from "../link-header.ts";

export interface WebSubDiscovery {
  /** Every hub named (absolute http(s) URLs, in order, no duplicates); empty when not pushed. */
  hubs: string[];
  /** The topic URL: the feed's self link, else the URL fetched. */
  self: string;
}

export interface DiscoveryInput {
  /** The URL that answered (the base for relative links, and the topic when no self link). */
  url: string;
  headers: Headers;
  body: Uint8Array;
  contentType: string | null;
}

/**
 * @example
 * const { hubs, self } = discoverWebSub(fetched); // fetched: a FeedFetched result
 * if (hubs[0]) await subscriber.subscribe(feedKey, hubs[0], self);
 */
export function discoverWebSub(input: DiscoveryInput): WebSubDiscovery {
  const fromHeader = parseLinkHeader(input.headers.get("link"), input.url);
  const fromBody = documentLinks(input);
  // The header wins over the document (WebSub 4: "MUST use the topic and hub URL from the HTTP Link header").
  const headerHubs = hrefs(fromHeader, "hub");
  const hubs = headerHubs.length > 0 ? headerHubs : hrefs(fromBody, "hub");
  const self = hrefs(fromHeader, "self")[0] ?? hrefs(fromBody, "self")[0] ?? input.url;
  return { hubs, self };
}

function hrefs(links: WebLink[], rel: string): string[] {
  const found: string[] = [];
  for (const link of links) {
    if (!link.rels.includes(rel) || found.includes(link.href)) continue;
    if (link.href.startsWith("https:") || link.href.startsWith("http:")) found.push(link.href);
  }
  return found;
}

function documentLinks(input: DiscoveryInput): WebLink[] {
  const text = new TextDecoder().decode(input.body);
  const isJson = /json/i.test(input.contentType ?? "") || /^\s*\{/.test(text);
  return isJson ? jsonFeedLinks(text, input.url) : markupLinks(text, input.url);
}

/** JSON Feed 1.1: `hubs: [{ "type": "WebSub", "url": … }]`, `feed_url` as self. */
function jsonFeedLinks(text: string, base: string): WebLink[] {
  let feed: unknown;
  try {
    feed = JSON.parse(text);
  } catch {
    return [];
  }
  if (typeof feed !== "object" || feed === null) return [];
  const links: WebLink[] = [];
  const add = (href: unknown, rel: string) => {
    if (typeof href !== "string") return;
    try {
      links.push({ href: new URL(href, base).href, rels: [rel] });
    } catch {
      // Not a URL: nothing to subscribe to.
    }
  };
  const { hubs, feed_url: feedUrl } = feed as { hubs?: unknown; feed_url?: unknown };
  if (Array.isArray(hubs)) {
    for (const hub of hubs as { type?: unknown; url?: unknown }[]) {
      if (typeof hub?.type === "string" && /^(websub|pubsubhubbub)$/i.test(hub.type)) add(hub.url, "hub");
    }
  }
  add(feedUrl, "self");
  return links;
}

const LINK_TAG = /<(?:[a-z][\w.-]*:)?link\b([^>]*)>/gi;
const ATTRIBUTE = /([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/g;

/**
 * `<link rel="hub" href="…">` in Atom, RSS (`atom:link`, any prefix) and HTML, read from the feed's
 * own head only: a link inside an entry belongs to that entry.
 */
function markupLinks(text: string, base: string): WebLink[] {
  const entry = text.search(/<(?:[a-z][\w.-]*:)?(?:entry|item)[\s>]/i);
  const head = entry === -1 ? text : text.slice(0, entry);
  const links: WebLink[] = [];
  for (const tag of head.matchAll(LINK_TAG)) {
    const attributes = new Map<string, string>();
    for (const attribute of (tag[1] ?? "").matchAll(ATTRIBUTE)) {
      const name = attribute[1]?.toLowerCase() ?? "";
      attributes.set(name, decodeEntities(attribute[2] ?? attribute[3] ?? attribute[4] ?? ""));
    }
    const rels = (attributes.get("rel") ?? "").toLowerCase().split(/\s+/).filter(Boolean);
    const href = attributes.get("href");
    if (rels.length === 0 || !href) continue;
    try {
      links.push({ href: new URL(href.trim(), base).href, rels });
    } catch {
      // Not a URL: nothing to subscribe to.
    }
  }
  return links;
}

const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decodeEntities(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code =
        name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[name.toLowerCase()] ?? whole;
  });
}
