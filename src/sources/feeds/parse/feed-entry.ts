// What the feed parser hands to the feed source (decision 0034): one feed, whatever its format, as our
// own types. Every field is already normalised: URLs absolute, dates parsed (or absent, never
// "now"), text and HTML both present where the entry has content. The feed source stores an entry
// as a post with `properties` (JF2, the read model of src/contract/posts.ts) and keys it with the
// identity fields, which are kept apart so that it can apply its own precedence and detect a
// site that changed every id at once.
import type { Photo } from "../../../contract/jf2.ts";

/** The format detected from the body (never from the content type alone). */
export type FeedFormat = "rss" | "rdf" | "atom" | "json" | "h-feed";

export interface FeedAuthor {
  name?: string;
  /** Absolute URL. */
  url?: string;
}

/** A file attached to an entry (RSS enclosure, Atom rel="enclosure", JSON Feed attachment, media:content, h-entry audio/video). */
export interface FeedEnclosure {
  /** Absolute URL. */
  url: string;
  /** The MIME type the feed gives, lower case; undefined when it gives none. */
  type?: string;
  /** Size in bytes, when the feed gives a positive one. */
  length?: number;
  title?: string;
}

/** What the site chose for one target or platform (a POSSE Party `platform_overrides` entry). */
export interface TargetChoice {
  /** false: not to this target; true: to this target even where the entry says otherwise. */
  syndicate?: boolean;
  /** A template such as "{{title}} {{url}}" (POSSE Party's placeholders). */
  formatString?: string;
  /** true: shorten the text to the service's limit; false: refuse rather than shorten. */
  truncate?: boolean;
  /** true: the post's URL is appended to the text. */
  appendUrl?: boolean;
}

/**
 * The per-entry choices of the site (decision 0038), from POSSE Party's `<posse:post>`, a JSON
 * Feed `_posse` object or an h-entry's `mp-syndicate-to`, merged into one value. Only valid fields
 * are kept; each one that was ignored is told in `FeedEntry.problems`.
 */
export interface EntryChoices extends TargetChoice {
  /** Target uids the entry names (`mp-syndicate-to`); undefined: the feed's own targets. */
  targets?: string[];
  /**
   * Overrides per target, keyed as the site wrote them: a POSSE Party platform tag ("mastodon",
   * "bsky", "x", "threads", "instagram", "facebook", "linkedin", "youtube") or a target uid.
   */
  perTarget: Record<string, TargetChoice>;
  /** Where the choices came from, e.g. ["posse:post"]. */
  sources: Array<"posse:post" | "_posse" | "mp-syndicate-to">;
}

/** Why part of a feed was set aside while the rest was read. */
export interface FeedProblem {
  /**
   * "duplicate-id": a later entry with a key already seen was set aside; "entry": part of an entry
   * was ignored (an invalid choice, an unreadable date), the same sentence as in its `problems`.
   */
  kind: "duplicate-id" | "entry";
  /** The entry's key (see FeedEntry.key) when the problem is an entry's. */
  entry?: string;
  /** A sentence for the user, in English (the feed page shows it as is). */
  message: string;
}

export interface FeedEntry {
  /**
   * The key the entry is known by: `id:<id>`, else `url:<url>`, else `hash:<contentHash>`
   * (decision 0036). The separate fields below let the feed source apply its own rules.
   */
  key: string;
  /** Atom `id`, RSS `guid`, RSS 1.0 `rdf:about`, JSON Feed `id`, h-entry `uid`: trimmed, as written. */
  id?: string;
  /** The entry's permalink, absolute. */
  url?: string;
  /** The title as plain text; absent for a note (no title, or a title that only repeats the content). */
  title?: string;
  /** Content as HTML, relative URLs resolved. Untrusted: never render it unsanitised. */
  contentHtml?: string;
  /**
   * Content as plain text (src/contract/plain-text.ts), made when first read (an enumerable getter,
   * as is `properties.content.text`): a poll that stores nothing converts nothing.
   */
  contentText?: string;
  /** Summary as plain text. */
  summary?: string;
  published?: Date;
  /** When the entry was edited; undefined when the feed gives none or the same time as `published`. */
  updated?: Date;
  /**
   * The date the entry gives for when it was written (`published`, else `updated` standing in for
   * it) as written, when it could not be read. Such an entry's age is unknown, not new: the feed
   * source records it without sending it.
   */
  unreadableDate?: string;
  /** Images: image enclosures, media:content images, JSON Feed `image`, h-entry `photo`. */
  photos: Photo[];
  /** Attached files that are not images (audio, video, documents); images are in `photos`. */
  enclosures: FeedEnclosure[];
  categories: string[];
  author?: FeedAuthor;
  /** The site's choices for this entry; undefined when it made none. */
  choices?: EntryChoices;
  /** Reasons something in this entry was ignored (an invalid choice, an unreadable date). */
  problems: string[];
  /**
   * SHA-256 (hex) of what a copy is made of: title, content, summary, url, photos, categories,
   * audio and video, and the choices that shape its text (format, truncate, append_url) if any. The same entry read again, in any format, has the same hash; a changed text
   * changes it. Dates are left out: a site that rebuilds every page's "updated" is not an edit.
   */
  contentHash: string;
  /**
   * The post this entry is, as JF2 properties (src/contract/posts.ts): type, name, content
   * {html, text}, summary, published (else updated), updated, url, uid, category, photo, audio,
   * video, author. Dates as ISO 8601 strings. No `mp-syndicate-to`: choices stay in `choices`.
   */
  properties: Record<string, unknown>;
}

export interface ParsedFeed {
  format: FeedFormat;
  title?: string;
  /** The site's home page, absolute. */
  homeUrl?: string;
  /** The WebSub hub the feed names (`<link rel="hub">`, JSON Feed `hubs`), absolute. */
  hubUrl?: string;
  /** The feed's own URL as it names it (`rel="self"`, JSON Feed `feed_url`), absolute. */
  selfUrl?: string;
  /** In document order (most feeds: newest first). Duplicates removed (see problems). */
  entries: FeedEntry[];
  /** What was set aside: duplicate ids, invalid choices. Empty for a clean feed. */
  problems: FeedProblem[];
}

export interface ParseFeedInput {
  /** The body as received: bytes (decoded by BOM, charset, XML declaration or meta tag) or text. */
  body: string | Uint8Array;
  /** The response's Content-Type, when there was one: a hint for decoding, never the format's judge. */
  contentType?: string | undefined;
  /** The URL the body came from, after redirects: the base of relative URLs. */
  url: string;
}
