import { randomBytes } from "node:crypto";
import type { Publication } from "../../contract/syndicator.ts";
import type { PostTypeName } from "../config/schema.ts";
import { postTypeOf } from "../stores/presets.ts";

// New posts' URLs, from the publication's pattern, e.g. "{me}notes/{yyyy}/{MM}/{dd}/{slug}/".

const PLACEHOLDERS = new Set(["me", "slug", "yyyy", "MM", "dd"]);
const MAX_SLUG_LENGTH = 60;

export type PostUrlBuilder = (slug: string, published: Date, properties?: Record<string, unknown>) => string;

/**
 * Checks the patterns once, up front, so that a misconfiguration fails at start and not at the first
 * post. `byType`: the pattern of each post type (a store's preset, publication.postTypes), over
 * publication.postUrlPattern.
 */
export function createPostUrlBuilder(
  publication: Publication,
  byType: Partial<Record<PostTypeName, string>> = {},
): PostUrlBuilder {
  const builders = new Map(
    Object.entries(byType).map(([type, pattern]) => [
      type,
      singlePatternBuilder({ ...publication, postUrlPattern: pattern }),
    ]),
  );
  const fallback = singlePatternBuilder(publication);
  return (slug, published, properties) =>
    (builders.get(properties ? postTypeOf(properties) : "note") ?? fallback)(slug, published);
}

function singlePatternBuilder(publication: Publication): (slug: string, published: Date) => string {
  const pattern = publication.postUrlPattern;
  for (const [, name] of pattern.matchAll(/\{([^}]*)\}/g)) {
    if (!PLACEHOLDERS.has(name ?? ""))
      throw new Error(
        `The post URL pattern "${pattern}" uses {${name}}; only {me}, {slug}, {yyyy}, {MM} and {dd} are known`,
      );
  }
  if (!pattern.includes("{slug}"))
    throw new Error(`The post URL pattern "${pattern}" lacks {slug}; without it two posts could get one URL`);
  const me = publication.me.endsWith("/") ? publication.me : `${publication.me}/`;
  // The date in a post's URL is the date where the author lives, not in UTC.
  const dateParts = new Intl.DateTimeFormat("en-CA", {
    timeZone: publication.timezone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  });
  const example = expand(pattern, me, "example", dateParts, new Date(0));
  if (!URL.canParse(example))
    throw new Error(`The post URL pattern "${pattern}" does not give an absolute URL (got "${example}")`);
  return (slug, published) => expand(pattern, me, slug, dateParts, published);
}

function expand(
  pattern: string,
  me: string,
  slug: string,
  dateParts: Intl.DateTimeFormat,
  date: Date,
): string {
  const parts = Object.fromEntries(dateParts.formatToParts(date).map((part) => [part.type, part.value]));
  const values: Record<string, string> = {
    me,
    slug,
    yyyy: parts.year ?? "",
    MM: parts.month ?? "",
    dd: parts.day ?? "",
  };
  return pattern.replace(/\{([^}]*)\}/g, (_match, name: string) => values[name] ?? "");
}

/** Lower-case ASCII letters, digits and hyphens; "" when nothing usable is left. */
export function slugify(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/-+$/g, "");
}

/** Short, URL-safe and lower case, for posts without a slug or a name (most notes). */
export function randomSlug(): string {
  const alphabet = "abcdefghijkmnpqrstuvwxyz23456789";
  return Array.from(randomBytes(6), (byte) => alphabet[byte % alphabet.length]).join("");
}

/** The slug a post asks for: mp-slug, else its name, else a short random id. */
export function chooseSlug(preferred: string | undefined, name: unknown): string {
  const fromPreferred = preferred ? slugify(preferred) : "";
  if (fromPreferred) return fromPreferred;
  const fromName = typeof name === "string" ? slugify(name) : "";
  return fromName || randomSlug();
}

/** The nth candidate for a slug: the slug itself, then slug-2, slug-3… */
export function numberedSlug(slug: string, n: number): string {
  return n === 1 ? slug : `${slug}-${n}`;
}
