// The one set of JF2 helpers (https://jf2.spec.indieweb.org/) host and plug-ins share: reading a
// post's properties (see src/contract/posts.ts), and the primitives the host's storage rules and its
// mf2 conversion are built on. Posts come from our own database, but their properties were once a
// client's Micropub request, so every value is checked for its shape here rather than trusted, and
// single values and one-item arrays are read alike.
import { z } from "zod";
import { htmlToText } from "./plain-text.ts";
import type { PostProperties } from "./syndicator.ts";

export interface Photo {
  /** Absolute URL. */
  url: string;
  alt?: string;
}

/** Where the text of a copy came from: a title or summary stands for a longer post. */
export interface PostText {
  text: string;
  source: "name" | "summary" | "content";
}

const nonEmpty = z.string().trim().min(1);
const contentSchema = z.union([
  nonEmpty,
  z.object({ text: z.string().optional(), html: z.string().optional() }),
]);
const photoSchema = z.union([
  nonEmpty.transform((url) => ({ url, alt: undefined as string | undefined })),
  z.object({ url: nonEmpty, alt: z.string().optional() }),
  // The Micropub JSON form of a photo with alt text.
  z
    .object({ value: nonEmpty, alt: z.string().optional() })
    .transform(({ value, alt }) => ({ url: value, alt })),
]);

/** Properties stored as arrays even with one value (the host's storage rules, src/server/posts/jf2.ts). */
export const ALWAYS_ARRAY_PROPERTIES: ReadonlySet<string> = new Set([
  "category",
  "syndication",
  "mp-syndicate-to",
  "photo",
  "video",
  "audio",
  "in-reply-to",
  "like-of",
  "repost-of",
  "bookmark-of",
]);

/** Properties that name a file by URL: JF2 writes them as "url" or {"url", "alt"}, mf2 as "url" or {"value", "alt"}. */
export const MEDIA_PROPERTIES: ReadonlySet<string> = new Set(["photo", "video", "audio"]);

/** A property's values as a list, whether stored as one value or an array (none: empty). */
export function valuesOf(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

const values = (properties: PostProperties, name: string): unknown[] => valuesOf(properties[name]);

/** Property values compare by content, with object keys in any order. */
export function sameValue(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner && typeof inner === "object" && !Array.isArray(inner)) {
      const entries = Object.entries(inner as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : 1));
      return Object.fromEntries(entries);
    }
    return inner;
  });
}

/** The first value of a property that is a non-empty string. */
export function firstString(properties: PostProperties, name: string): string | undefined {
  for (const value of values(properties, name)) {
    const parsed = nonEmpty.safeParse(value);
    if (parsed.success) return parsed.data;
  }
  return undefined;
}

function absolute(url: string, base: string): string | undefined {
  try {
    const resolved = new URL(url, base);
    return resolved.protocol === "http:" || resolved.protocol === "https:" ? resolved.href : undefined;
  } catch {
    return undefined;
  }
}

/** The post's own URL: the permalink every copy links back to. */
export function permalink(properties: PostProperties): string | undefined {
  const url = firstString(properties, "url");
  return url ? absolute(url, url) : undefined;
}

/** The first absolute URL of a property such as like-of, repost-of or in-reply-to. */
export function firstUrl(properties: PostProperties, name: string, base: string): string | undefined {
  for (const value of values(properties, name)) {
    // An h-cite object names its URL in `url`.
    const candidate = typeof value === "object" && value !== null ? (value as { url?: unknown }).url : value;
    const parsed = nonEmpty.safeParse(candidate);
    const url = parsed.success ? absolute(parsed.data, base) : undefined;
    if (url) return url;
  }
  return undefined;
}

/**
 * The content as plain text. HTML, when the post has it, is what the post shows, so it is made
 * plain here, with the one converter (plain-text.ts): a stored `text` may have been written by an
 * older, worse converter, or by a client that dropped the links, and is used only without HTML.
 */
export function contentText(properties: PostProperties): string | undefined {
  for (const value of values(properties, "content")) {
    const parsed = contentSchema.safeParse(value);
    if (!parsed.success) continue;
    const content = parsed.data;
    const text =
      typeof content === "string"
        ? content
        : (content.html?.trim() ? htmlToText(content.html) : "") || (content.text ?? "");
    if (text.trim()) return text.trim();
  }
  return undefined;
}

/** The text a short copy is made of: the name, else the summary, else the content. */
export function postText(properties: PostProperties): PostText | undefined {
  const name = firstString(properties, "name");
  if (name) return { text: name, source: "name" };
  const summary = firstString(properties, "summary");
  if (summary) return { text: summary, source: "summary" };
  const content = contentText(properties);
  return content ? { text: content, source: "content" } : undefined;
}

/** Photos with absolute URLs; `base` (the site's URL) resolves relative ones. */
export function photos(properties: PostProperties, base: string): Photo[] {
  const found: Photo[] = [];
  for (const value of values(properties, "photo")) {
    const parsed = photoSchema.safeParse(value);
    if (!parsed.success) continue;
    const url = absolute(parsed.data.url, base);
    if (!url) continue;
    const alt = parsed.data.alt?.trim();
    found.push(alt ? { url, alt } : { url });
  }
  return found;
}

/** Category values that are words, not URLs (a URL category tags a person, not a topic). */
export function categories(properties: PostProperties): string[] {
  return values(properties, "category")
    .map((value) => nonEmpty.safeParse(value))
    .flatMap((parsed) => (parsed.success && !/^https?:\/\//i.test(parsed.data) ? [parsed.data] : []));
}

/** The post's language (`lang`) as a BCP 47 tag, e.g. "de" or "pt-BR"; undefined when absent or not a tag. */
export function postLanguage(properties: PostProperties): string | undefined {
  const lang = firstString(properties, "lang")?.replace(/_/g, "-");
  return lang && /^[a-z]{2,3}(?:-[a-z0-9]{1,8})*$/i.test(lang) ? lang : undefined;
}
