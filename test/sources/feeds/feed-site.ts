// A site in the test that publishes without Micropub: a node:http server answering its feed in one
// of five formats (RSS 2.0, RSS 1.0/RDF, Atom, JSON Feed, an HTML page with an h-feed), with an ETag and 304s as
// a static host gives them; the test changes the entries, or makes the site answer otherwise.
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { listen, type RunningServer } from "../../../dev/sandbox/http-kit.ts";

export type SiteFormat = "rss" | "rdf" | "atom" | "json" | "h-feed";
export const SITE_FORMATS: readonly SiteFormat[] = ["rss", "rdf", "atom", "json", "h-feed"];

export interface SiteEntry {
  /** Omitted: the entry has no id (RSS without guid, h-entry without uid). */
  id?: string;
  url: string;
  title: string;
  /** HTML. */
  content: string;
  /** ISO 8601; omitted: the entry has no date. */
  published?: string;
  categories?: string[];
  /** POSSE Party's per-entry object: a `<posse:post>` in Atom and RSS, `_posse` in JSON Feed. */
  posse?: Record<string, unknown>;
  /** RSS only: the item's `<author>` as written ("jo@example.com (Jo Doe)"). */
  author?: string;
  /** RSS only: the item's `<pubDate>` as written, in place of `published`'s RFC 822 form. */
  pubDate?: string;
}

const POSSE = 'xmlns:posse="https://posseparty.com/2024/Feed"';
const posseElement = (entry: SiteEntry) =>
  entry.posse ? `<posse:post format="json"><![CDATA[${JSON.stringify(entry.posse)}]]></posse:post>` : "";

const xml = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");

export function renderFeed(
  format: SiteFormat,
  entries: readonly SiteEntry[],
  { home, hub }: { home: string; hub?: string | undefined },
): { body: string; contentType: string } {
  const posse = entries.some((entry) => entry.posse) ? ` ${POSSE}` : "";
  switch (format) {
    case "rss":
      return {
        contentType: "application/rss+xml; charset=utf-8",
        body: `<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"${posse}><channel>
<title>A site</title><link>${xml(home)}</link><description>Posts</description>
${hub ? `<atom:link rel="hub" href="${xml(hub)}"/>` : ""}
${entries
  .map(
    (entry) => `<item><title>${xml(entry.title)}</title><link>${xml(entry.url)}</link>
${entry.id !== undefined ? `<guid isPermaLink="false">${xml(entry.id)}</guid>` : ""}
${entry.pubDate !== undefined ? `<pubDate>${xml(entry.pubDate)}</pubDate>` : entry.published ? `<pubDate>${new Date(entry.published).toUTCString()}</pubDate>` : ""}
${entry.author !== undefined ? `<author>${xml(entry.author)}</author>` : ""}
${(entry.categories ?? []).map((category) => `<category>${xml(category)}</category>`).join("")}
<description>${xml(entry.content)}</description>${posseElement(entry)}</item>`,
  )
  .join("\n")}
</channel></rss>`,
      };
    case "rdf":
      // RSS 1.0: items beside the channel, each named by its rdf:about (the entry's id, else its link)
      // and listed in the channel's rdf:Seq; dates in Dublin Core, the HTML in content:encoded.
      return {
        contentType: "application/rdf+xml; charset=utf-8",
        body: `<?xml version="1.0" encoding="utf-8"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
  xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:content="http://purl.org/rss/1.0/modules/content/"
  xmlns:atom="http://www.w3.org/2005/Atom">
<channel rdf:about="${xml(home)}"><title>A site</title><link>${xml(home)}</link><description>Posts</description>
${hub ? `<atom:link rel="hub" href="${xml(hub)}"/>` : ""}
<items><rdf:Seq>${entries.map((entry) => `<rdf:li rdf:resource="${xml(entry.id ?? entry.url)}"/>`).join("")}</rdf:Seq></items>
</channel>
${entries
  .map(
    (
      entry,
    ) => `<item rdf:about="${xml(entry.id ?? entry.url)}"><title>${xml(entry.title)}</title><link>${xml(entry.url)}</link>
${entry.published ? `<dc:date>${entry.published}</dc:date>` : ""}
${(entry.categories ?? []).map((category) => `<dc:subject>${xml(category)}</dc:subject>`).join("")}
<content:encoded>${xml(entry.content)}</content:encoded></item>`,
  )
  .join("\n")}
</rdf:RDF>`,
      };
    case "atom":
      return {
        contentType: "application/atom+xml; charset=utf-8",
        body: `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"${posse}><title>A site</title><id>${xml(home)}</id>
<updated>2026-01-01T00:00:00Z</updated><link rel="alternate" href="${xml(home)}"/>
${hub ? `<link rel="hub" href="${xml(hub)}"/>` : ""}
${entries
  .map(
    (entry) => `<entry><title>${xml(entry.title)}</title>
${entry.id !== undefined ? `<id>${xml(entry.id)}</id>` : ""}<link rel="alternate" href="${xml(entry.url)}"/>
${entry.published ? `<published>${entry.published}</published><updated>${entry.published}</updated>` : ""}
${(entry.categories ?? []).map((category) => `<category term="${xml(category)}"/>`).join("")}
<content type="html">${xml(entry.content)}</content>${posseElement(entry)}</entry>`,
  )
  .join("\n")}
</feed>`,
      };
    case "json":
      return {
        contentType: "application/feed+json",
        body: JSON.stringify({
          version: "https://jsonfeed.org/version/1.1",
          title: "A site",
          home_page_url: home,
          ...(hub ? { hubs: [{ type: "WebSub", url: hub }] } : {}),
          items: entries.map((entry) => ({
            id: entry.id ?? entry.url,
            url: entry.url,
            title: entry.title,
            content_html: entry.content,
            ...(entry.published ? { date_published: entry.published } : {}),
            ...(entry.categories ? { tags: entry.categories } : {}),
            ...(entry.posse ? { _posse: entry.posse } : {}),
          })),
        }),
      };
    case "h-feed":
      return {
        contentType: "text/html; charset=utf-8",
        body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A site</title>
${hub ? `<link rel="hub" href="${xml(hub)}">` : ""}</head><body><main class="h-feed"><h1 class="p-name">A site</h1>
${entries
  .map(
    (entry) => `<article class="h-entry"><h2 class="p-name">${xml(entry.title)}</h2>
<a class="u-url" href="${xml(entry.url)}">link</a>${entry.id !== undefined ? `<data class="u-uid" value="${xml(entry.id)}"></data>` : ""}
${entry.published ? `<time class="dt-published" datetime="${entry.published}">${entry.published}</time>` : ""}
${(entry.categories ?? []).map((category) => `<a class="p-category" href="/tags/${xml(category)}">${xml(category)}</a>`).join(" ")}
<div class="e-content">${entry.content}</div></article>`,
  )
  .join("\n")}
</main></body></html>`,
      };
  }
}

export interface SiteRequest {
  path: string;
  ifNoneMatch: string | undefined;
  status: number;
}

/** What the site answers at a path instead of its feed (a redirect, a 410, an error page). */
export type SiteAnswer = (request: IncomingMessage, response: ServerResponse) => void;

export class FeedSite {
  format: SiteFormat;
  entries: SiteEntry[] = [];
  /** The hub the feed names (WebSub), if any. */
  hub: string | undefined;
  /** Raw bodies served in place of the rendered feed (malformed XML, an HTML error page). */
  rawBody: { body: string; contentType: string } | undefined;
  /** Paths answered otherwise than with the feed. */
  readonly answers = new Map<string, SiteAnswer>();
  readonly requests: SiteRequest[] = [];
  /** Paths where the feed is served. */
  readonly feedPaths = new Set(["/feed"]);
  #server: RunningServer | undefined;

  constructor(format: SiteFormat) {
    this.format = format;
  }

  async start(): Promise<this> {
    this.#server = await listen((request, response) => this.#answer(request, response));
    return this;
  }

  get url(): string {
    if (!this.#server) throw new Error("The site is not started");
    return this.#server.url;
  }

  /** The feed as served now: its body and its ETag. */
  current(): { body: string; contentType: string; etag: string } {
    const rendered =
      this.rawBody ?? renderFeed(this.format, this.entries, { home: `${this.url}/`, hub: this.hub });
    const etag = `"${createHash("sha256").update(rendered.body).digest("hex").slice(0, 16)}"`;
    return { ...rendered, etag };
  }

  /** Requests for the feed answered with its body (200), i.e. bodies the reader had to parse. */
  bodiesServed(): number {
    return this.requests.filter((request) => request.status === 200).length;
  }

  #answer(request: IncomingMessage, response: ServerResponse): void {
    const path = new URL(request.url ?? "/", "http://site").pathname;
    const ifNoneMatch = request.headers["if-none-match"];
    const answer = this.answers.get(path);
    if (answer) {
      answer(request, response);
      this.requests.push({ path, ifNoneMatch, status: response.statusCode });
      return;
    }
    if (!this.feedPaths.has(path)) {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found");
      this.requests.push({ path, ifNoneMatch, status: 404 });
      return;
    }
    const { body, contentType, etag } = this.current();
    const status = ifNoneMatch === etag ? 304 : 200;
    this.requests.push({ path, ifNoneMatch, status });
    if (status === 304) response.writeHead(304, { etag }).end();
    else response.writeHead(200, { "content-type": contentType, etag }).end(body);
  }

  close(): Promise<void> {
    return this.#server?.close() ?? Promise.resolve();
  }
}
