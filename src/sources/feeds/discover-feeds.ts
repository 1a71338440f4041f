// What the Feeds page finds at the address the user pasted (decision 0054): the feed itself, or a
// site's home page and the feeds it names in `<link rel="alternate">` (RSS, Atom, JSON Feed), and
// the page's own h-feed. Each one found is fetched as a feed is read (fetchFeed: the outgoing-fetch
// rules, never a private address unless `fetch.allowPrivate`) and parsed on the parse thread, never
// on the server's; the page shows its format, title, newest entries and whether it names a WebSub
// hub. It never throws for what the site does: a refusal names the reason the page words.
import type { OutgoingFetchPolicy } from "../../net/safe-fetch.ts";
import { discoverWebSub, type FeedFetched, fetchFeed } from "./http/index.ts";
import { decodeBody } from "./parse/decode-body.ts";
import { detectFormat } from "./parse/detect-format.ts";
import { type FeedFormat, FeedParseError, type FeedParser } from "./parse/index.ts";

/** How many of a home page's feed links are followed (a page naming dozens is not read through). */
export const MAX_FEED_LINKS = 5;
/** How many of a feed's newest entries the page shows. */
export const SHOWN_ENTRIES = 3;
/** How long one fetch of the discovery may take: the user waits for the page. */
const DISCOVERY_TIMEOUT_MS = 15_000;

export interface DiscoveredEntry {
  title: string | null;
  url: string | null;
  published: Date | null;
}

export interface DiscoveredFeed {
  /** The feed's address: what possekit reads. */
  url: string;
  format: FeedFormat;
  title: string | null;
  /** How many entries it lists now. */
  entryCount: number;
  /** Its newest entries, newest first. */
  newest: DiscoveredEntry[];
  /** The WebSub hub it names (pushed at once), or null (read on its interval). */
  hub: string | null;
  /** Whether it is the address asked about (a feed pasted as it is, or a page's own h-feed). */
  asked: boolean;
}

export type DiscoveryRefusal =
  | "invalid-url"
  | "private-address"
  | "unreachable"
  | "http-error"
  | "gone"
  | "too-large"
  | "no-feed";

export type Discovery =
  | { kind: "found"; feeds: DiscoveredFeed[] }
  | {
      kind: "refused";
      reason: DiscoveryRefusal;
      /** What went wrong, in the site's or the parser's words (English), for the page to add. */
      detail: string;
    };

export interface DiscoveryOptions {
  policy: OutgoingFetchPolicy;
  parser: FeedParser;
  signal?: AbortSignal;
}

const FEED_TYPES = /^application\/(?:rss\+xml|atom\+xml|feed\+json|json|rdf\+xml)$/i;

/**
 * The feed links an HTML page names in its `<link rel="alternate" type="…">`, absolute, in order,
 * without duplicates. A linear scan of the `<link>` tags (never a DOM: the page may be hostile).
 */
export function alternateFeedLinks(html: string, base: string): string[] {
  const found: string[] = [];
  for (const tag of html.matchAll(/<link\b[^>]*>/gi)) {
    const attributes = new Map<string, string>();
    for (const [, name, double, single, bare] of tag[0].matchAll(
      /([a-z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/gi,
    ))
      if (name) attributes.set(name.toLowerCase(), (double ?? single ?? bare ?? "").trim());
    const rels = (attributes.get("rel") ?? "").toLowerCase().split(/\s+/);
    const href = attributes.get("href");
    if (!rels.includes("alternate") || !href || !FEED_TYPES.test(attributes.get("type") ?? "")) continue;
    const absolute = URL.canParse(href.replaceAll("&amp;", "&"), base)
      ? new URL(href.replaceAll("&amp;", "&"), base).href
      : null;
    if (absolute && /^https?:/.test(absolute) && !found.includes(absolute)) found.push(absolute);
  }
  return found;
}

const refused = (reason: DiscoveryRefusal, detail: string): Discovery => ({
  kind: "refused",
  reason,
  detail,
});

/** Fetches the address as a feed is fetched: the answer, or why there was none. */
async function fetchOnce(
  url: string,
  options: DiscoveryOptions,
): Promise<FeedFetched | Extract<Discovery, { kind: "refused" }>> {
  const signal = options.signal;
  const result = await fetchFeed(
    { url },
    { policy: options.policy, timeoutMs: DISCOVERY_TIMEOUT_MS, ...(signal ? { signal } : {}) },
  );
  switch (result.kind) {
    case "fetched":
      return result;
    case "not-modified":
      return { kind: "refused", reason: "http-error", detail: "304 Not Modified" };
    case "gone":
      return { kind: "refused", reason: "gone", detail: result.message };
    case "backoff":
      return {
        kind: "refused",
        reason: result.reason === "unreachable" || result.reason === "timeout" ? "unreachable" : "http-error",
        detail: result.message,
      };
    case "refused":
      return {
        kind: "refused",
        reason:
          result.reason === "private-address"
            ? "private-address"
            : result.reason === "invalid-url"
              ? "invalid-url"
              : result.reason === "too-large"
                ? "too-large"
                : "http-error",
        detail: result.message,
      };
  }
}

/** The fetched answer read as a feed on the parse thread; null with why when it is none. */
async function readAsFeed(
  fetched: FeedFetched,
  parser: FeedParser,
  asked: boolean,
): Promise<{ feed: DiscoveredFeed } | { problem: string }> {
  try {
    const { feed, total } = await parser.parse(
      { body: fetched.body, contentType: fetched.contentType ?? undefined, url: fetched.url },
      SHOWN_ENTRIES,
    );
    const hub = discoverWebSub(fetched).hubs[0] ?? feed.hubUrl ?? null;
    const dated = (date: Date | undefined) => date ?? null;
    return {
      feed: {
        url: fetched.url,
        format: feed.format,
        title: feed.title ?? null,
        entryCount: total,
        newest: feed.entries
          .map((entry) => ({
            title: entry.title ?? null,
            url: entry.url ?? null,
            published: dated(entry.published ?? entry.updated),
          }))
          .sort((a, b) => (b.published?.getTime() ?? 0) - (a.published?.getTime() ?? 0)),
        hub,
        asked,
      },
    };
  } catch (error) {
    if (error instanceof FeedParseError) return { problem: error.message };
    throw error;
  }
}

/**
 * The feeds at `url`: itself when it is a feed, else the feeds its page names and its own h-feed.
 *
 * @example
 * const found = await discoverFeeds("https://blog.example/", { policy, parser });
 * if (found.kind === "found") show(found.feeds); else say(found.reason, found.detail);
 */
export async function discoverFeeds(url: string, options: DiscoveryOptions): Promise<Discovery> {
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    return refused("invalid-url", `${url} is not an http or https address`);
  const page = await fetchOnce(url, options);
  if (page.kind === "refused") return page;
  const text = decodeBody(page.body, page.contentType ?? undefined);
  const isHtml = detectFormat(text).kind === "html";
  const own = await readAsFeed(page, options.parser, true);
  // A feed pasted as it is: that feed alone.
  if (!isHtml && "feed" in own) return { kind: "found", feeds: [own.feed] };
  const feeds: DiscoveredFeed[] = [];
  const problems: string[] = "problem" in own ? [own.problem] : [];
  const links = isHtml ? alternateFeedLinks(text, page.url).filter((link) => link !== page.url) : [];
  for (const link of links.slice(0, MAX_FEED_LINKS)) {
    if (options.signal?.aborted) break;
    const fetched = await fetchOnce(link, options);
    if (fetched.kind === "refused") {
      problems.push(`${link}: ${fetched.detail}`);
      continue;
    }
    const read = await readAsFeed(fetched, options.parser, false);
    if ("feed" in read) {
      if (!feeds.some((feed) => feed.url === read.feed.url)) feeds.push(read.feed);
    } else problems.push(`${link}: ${read.problem}`);
  }
  // The page's own h-feed, after the feeds it names (those are what the site means to be read).
  if ("feed" in own) feeds.push(own.feed);
  if (feeds.length > 0) return { kind: "found", feeds };
  return refused("no-feed", problems.join(" "));
}
