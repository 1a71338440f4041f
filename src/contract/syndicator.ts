// The syndicator contract: what a syndication target (a plug-in that copies posts elsewhere) offers
// the endpoint, and what it is told. Indiekit's syndicator shape, with preview, update and delete.
// SyndicatorPlugin itself is in plugin.ts: it is a Plugin, and the Server keeps a list of them.
import type { ThreadPost } from "./thread-progress.ts";

/** What a syndication target says of itself (Indiekit's syndicator `info`). */
export interface SyndicatorInfo {
  /** Unique; what posts name in mp-syndicate-to. Matched exactly, never by prefix. */
  uid: string;
  name: string;
  service?: { name: string; url: string; photo?: string };
  user?: { name?: string; url?: string; photo?: string };
  /**
   * false: the copies are seen only by some (Mastodon's followers-only statuses), so the public
   * `copies` routes never list them. Absent: anyone may see a copy at its URL.
   */
  publicCopies?: boolean;
}

export interface SyndicateOptions {
  /** Stable per (post, target): a target that honours idempotency recognises a repeated send. */
  idempotencyKey: string;
  /** Aborted when the per-target timeout expires. */
  signal: AbortSignal;
  /** What this target saved with `checkpoint` during an earlier, unfinished attempt of this send. */
  resumeFrom?: string;
  /**
   * Saves a note of progress (a job id, say) with the send, so that the next attempt resumes the
   * same work rather than starting it again. Kept until the send succeeds; then a thread's progress
   * (thread-progress.ts) with every post sent is kept with the copy as its posts (decision 0062).
   */
  checkpoint?(value: string): Promise<void>;
  /** The user's own words for this post and target, sent instead of the text made from the post. */
  text?: string;
  /** The site's choice for this post and target (see SiteText); `text` wins over it. */
  site?: SiteText;
  /** The user's thread choice for this post and target (PreviewOptions.thread). */
  thread?: boolean;
}

/**
 * The post property in which a post source (a feed, decision 0038) keeps the site's text choices
 * by target uid: `[{ "<uid>": SiteText }]`. A Micropub client cannot set it (the endpoint drops the
 * `mp-` commands it does not know); the core reads it only for a post from another origin.
 */
export const SITE_TEXT_PROPERTY = "mp-syndicate-site-text";

/**
 * What the site chose for the text of one post's copy on one target: a feed entry's POSSE Party
 * `<posse:post>` or JSON Feed `_posse` (decision 0038). Unlike the user's own words, it is still
 * fitted to the service: cut to its limit unless `truncate` is false, with the permalink as
 * `appendUrl` says. Each field left out is the target's own option.
 */
export interface SiteText {
  /** The text the site's format string made; absent: the target's template makes it. */
  text?: string;
  /** false: never cut; a text over the limit is then refused as the user's own words are. */
  truncate?: boolean;
  /** true: the permalink follows the text; false: it never does. */
  appendUrl?: boolean;
}

/** What `preview` returns: exactly what `syndicate` would send, found without any network call. */
export interface CopyPreview {
  /** The text the target receives; absent when it receives none (a capture, a like, a repost). */
  text?: string;
  /** The text's length as the service counts it, against its limit (none: the service sets none). */
  length?: {
    count: number;
    limit?: number;
    /** What is counted: Mastodon "characters" (a link counts as the instance says), Bluesky "graphemes". */
    unit: "characters" | "graphemes";
    /** The limit was assumed (the instance has not been read yet): the send uses what it reads. */
    assumed?: boolean;
  };
  /** The text is longer than the limit: the service would refuse it. */
  over: boolean;
  /**
   * A thread (decision 0055): every post of it in order, each as sent and counted against the same
   * limit as `length`. `text` and `length` are then the first post's.
   */
  thread?: { text: string; count: number }[];
  /** The post's text had to be cut to fit. */
  cut: boolean;
  /** Where the link to the post went: into the text, a link card, nowhere. */
  permalink: "text" | "card" | "none";
  photos: { url: string; alt?: string }[];
  /**
   * Bluesky's card for the post; `image` is the post's featured image when it names one, else
   * `imageFromPage` says the picture is the page's og:image, read when sending (a page or picture
   * that cannot be had leaves the card without one).
   */
  linkCard?: { uri: string; title: string; description: string; image?: string; imageFromPage?: boolean };
  /**
   * Bluesky's rich-text facets of the text, at UTF-8 byte offsets, as the record carries them. A
   * mention names the handle: its DID is looked up when sending (a handle nobody has stays text).
   */
  facets?: CopyFacet[];
  /** What the copy does besides (or instead of) a text. */
  action?: { kind: "like" | "repost" | "reply" | "capture"; url: string };
  /** The text is the user's own words for this post and target. */
  ownText: boolean;
  /**
   * The service would not take this post at all, and why (a locale key under
   * syndicate.preview.notTaken): "photoRequired" on Pixelfed, where a status needs a photo. Sending
   * it is refused for good with the same reason, never retried.
   */
  notSent?: { reason: "photoRequired" };
}

export interface CopyFacet {
  index: { byteStart: number; byteEnd: number };
  /** app.bsky.richtext.facet#link (uri), #tag (tag) or #mention (handle in a preview, did when sent). */
  features: { $type: string; uri?: string; tag?: string; did?: string; handle?: string }[];
}

export interface PreviewOptions {
  /** The user's own words for this post and target. */
  text?: string;
  /** The site's choice for this post and target; `text` wins over it. */
  site?: SiteText;
  /**
   * The user's choice for this post and target (decision 0058): true, a long text becomes a thread;
   * false, it is cut and linked. Absent: the target's own `thread` option. Own words are one post.
   */
  thread?: boolean;
}

/** A target's thread options (decision 0055): its configuration's, or its account's page's. */
export interface ThreadOptions {
  /** A post longer than the limit becomes a thread instead of being cut. */
  thread: boolean;
  /** At most this many posts; a longer text is cut and linked. */
  threadMax: number;
  /** Each post ends with " 1/3". */
  threadNumbering: boolean;
  /** The post that links to the original. */
  threadPermalink: "first" | "last";
}

export interface Publication {
  /** The site's own URL, e.g. https://example.org/ */
  me: string;
  /** Pattern for new post URLs, e.g. {me}notes/{slug}/ */
  postUrlPattern: string;
  timezone: string;
  name: string;
}

/** JF2 properties of a post (see src/contract/posts.ts). */
export type PostProperties = Record<string, unknown>;

/** What `update` and `delete` are told, besides the post. */
export interface CopyChangeOptions {
  /** The copy's URL, as `syndicate` returned it. */
  url: string;
  /** Stable per change: a target that honours idempotency recognises a repeated request. */
  idempotencyKey: string;
  /** Aborted when the per-target timeout expires. */
  signal: AbortSignal;
  /** update: the user's own words for this post and target, sent instead of the template's text. */
  text?: string;
  /** update: the site's choice for this post and target; `text` wins over it. */
  site?: SiteText;
  /** update: the user's thread choice for this post and target (PreviewOptions.thread). */
  thread?: boolean;
  /**
   * update: the photos the copy was last sent, in order, with their alt text, as the ledger recorded
   * them (decision 0060); absent when no record was kept. Tells a photo the copy holds from a new one.
   */
  sentPhotos?: Array<{ url: string; alt: string | null }>;
  /**
   * The copy's posts when it was sent as a thread (decision 0062), in order, as last saved; absent
   * for a single post, or a thread sent before the posts were kept.
   */
  threadPosts?: ThreadPost[];
  /**
   * The idempotency key the copy was sent with (the send's, not this change's). A Bluesky thread sent
   * before its posts were kept has record keys derived from it (decision 0064), so its deletion can
   * find every post.
   */
  sentKey?: string;
  /**
   * Keeps the thread's posts as they are now, after each step of an edit or a deletion (a post
   * edited, added or deleted), so that a retry goes on from there. Empty: none is left.
   */
  saveThread?(posts: ThreadPost[]): Promise<void>;
}
