// The picture of a link card, as Bluesky's own client finds it: the page's `og:image` (or
// `twitter:image`). The page comes from a post, so it is fetched under the outgoing-fetch rules,
// and only its head is read.
import { decodeEntities } from "../../contract/plain-text.ts";
import { type OutgoingFetchPolicy, safeFetch } from "../../net/safe-fetch.ts";

/** Enough of a page for its <head>; the rest is never read. */
const pageBytes = 512 * 1024;
/** A card picture is decoration: a slow page is not waited for long. */
const pageTimeoutMs = 10_000;
const imageProperties = new Set(["og:image", "og:image:url", "og:image:secure_url", "twitter:image"]);

/** An attribute's value in a meta tag, decoded, or undefined. */
function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(tag);
  const value = match?.[1] ?? match?.[2] ?? match?.[3];
  return value === undefined ? undefined : decodeEntities(value).trim();
}

/** The absolute http(s) URL of the page's card image, or undefined when it names none. */
export function cardImageInHtml(html: string, pageUrl: string): string | undefined {
  for (const [tag] of html.matchAll(/<meta\b[^>]*>/gi)) {
    const key = (attribute(tag, "property") ?? attribute(tag, "name"))?.toLowerCase();
    const content = attribute(tag, "content");
    if (!key || !imageProperties.has(key) || !content) continue;
    try {
      const url = new URL(content, pageUrl);
      if (url.protocol === "http:" || url.protocol === "https:") return url.href;
    } catch {}
  }
  return undefined;
}

/** Fetches the page and returns its card image's URL; undefined when the page cannot be read. */
export async function cardImageOfPage(
  pageUrl: string,
  policy: OutgoingFetchPolicy,
  signal: AbortSignal,
): Promise<string | undefined> {
  const response = await safeFetch(pageUrl, {
    policy,
    maxBytes: pageBytes,
    overflow: "truncate",
    timeoutMs: pageTimeoutMs,
    signal,
    headers: { accept: "text/html" },
  });
  const type = response.headers.get("content-type") ?? "";
  if (!response.ok || !/html/i.test(type)) return undefined;
  return cardImageInHtml(new TextDecoder().decode(response.body), response.url);
}
