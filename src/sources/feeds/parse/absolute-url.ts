// Relative URLs in feeds: an entry's link, enclosure or image may be written relative to the
// entry's xml:base, the feed's, or the address the feed was fetched from (RFC 4287 §2, and what
// readers do for RSS). Only http(s) survives as a link, photo or enclosure of a post: a copy's
// reader cannot follow anything else, and the feed source fetches photos.

/** A base for the next level: `value` resolved against `base` when it is a URL, else `base` itself. */
export function nestedBase(value: string | undefined, base: string): string {
  const text = value?.trim();
  if (!text) return base;
  try {
    return new URL(text, base).href;
  } catch {
    return base;
  }
}

/** `value` as an absolute http(s) URL, resolved against `base`; undefined when it is none. */
export function absoluteUrl(value: string | undefined, base: string): string | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  try {
    const url = new URL(text, base);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}
