// Fetching a feed politely (issue 29, item 4): one conditional GET through the outgoing-fetch rules
// (src/net/safe-fetch.ts), and a verdict the feed source can store as it is: what came back, which
// URL and validators to keep, and when to ask again. It decides nothing about the entries.
import type { OutgoingFetchPolicy } from "../../../net/safe-fetch.ts";

/** The bytes of a feed the source keeps between fetches (one row of its feeds table). */
export interface FeedFetchState {
  /** The URL to fetch: the configured one, or where a permanent redirect moved it. */
  url: string;
  /** The last `ETag` the feed answered with, sent back as `If-None-Match`. */
  etag?: string | null;
  /** The last `Last-Modified`, sent back as `If-Modified-Since`. */
  lastModified?: string | null;
  /** Failed fetches in a row (0 after any success), for the exponential backoff. */
  failures?: number;
  /** The feed's own interval when the answer says nothing about caching (default 300). */
  pollSeconds?: number;
}

export interface FeedFetchOptions {
  /** `fetch.allowPrivate` and the user's own site: the same rules as every outgoing fetch. */
  policy: OutgoingFetchPolicy;
  /** Milliseconds since the epoch (Date.now by default); tests pass a TestClock. */
  now?: () => number;
  /** For the whole exchange, redirects included (default 20 s). */
  timeoutMs?: number;
  /** Most bytes of body, counted after decompression (default 5 MB). */
  maxBytes?: number;
  /** Sent as User-Agent (default: feedUserAgent(policy.ownSite)). */
  userAgent?: string;
  /** The caller's cancellation (a server shutting down). */
  signal?: AbortSignal;
}

/** The validators to store after a fetch (null: the feed sent none; send none next time). */
export interface FeedValidators {
  etag: string | null;
  lastModified: string | null;
}

interface Verdict {
  /** When to fetch next, in milliseconds since the epoch; null for a feed that is gone. */
  nextFetchAt: number | null;
  /** Failed fetches in a row after this one: 0 on success, to store in FeedFetchState.failures. */
  failures: number;
  /**
   * Set when the feed moved for good (301/308, from the stored URL on): the URL to store in place
   * of FeedFetchState.url. Temporary redirects (302/303/307) are followed but never stored.
   */
  movedTo?: string;
}

/** 200: the body to parse. */
export interface FeedFetched extends Verdict {
  kind: "fetched";
  nextFetchAt: number;
  /** The decompressed body, at most maxBytes. */
  body: Uint8Array;
  /** The Content-Type header as sent (null without one). */
  contentType: string | null;
  /** The URL that answered, after every redirect: the base for relative URLs in the feed. */
  url: string;
  validators: FeedValidators;
  /** The answer's headers (its `Link` header names a WebSub hub and self URL). */
  headers: Headers;
}

/** 304: nothing changed, nothing to parse. */
export interface FeedNotModified extends Verdict {
  kind: "not-modified";
  nextFetchAt: number;
  /** The stored validators, updated with any the 304 sent. */
  validators: FeedValidators;
}

/** 410: the feed was deleted on purpose; stop polling it and tell the user. */
export interface FeedGone extends Verdict {
  kind: "gone";
  nextFetchAt: null;
  status: 410;
  message: string;
}

/** The site is unwell or asks us to slow down: try again at nextFetchAt. */
export interface FeedBackoff extends Verdict {
  kind: "backoff";
  nextFetchAt: number;
  reason: "rate-limited" | "unavailable" | "http-error" | "timeout" | "unreachable";
  /** The HTTP status, when there was an answer. */
  status?: number;
  /** Whether nextFetchAt comes from the site's own Retry-After. */
  retryAfter: boolean;
  message: string;
}

/** We would not fetch or keep it: a private address, too large, not a feed's bytes. */
export interface FeedRefused extends Verdict {
  kind: "refused";
  nextFetchAt: number;
  reason: "private-address" | "too-large" | "bad-content" | "invalid-url" | "too-many-redirects";
  message: string;
}

export type FeedFetchResult = FeedFetched | FeedNotModified | FeedGone | FeedBackoff | FeedRefused;

export const DEFAULT_POLL_SECONDS = 300;
export const DEFAULT_FEED_MAX_BYTES = 5 * 1024 * 1024;
export const DEFAULT_FEED_TIMEOUT_MS = 20_000;

/**
 * GETs a feed with its validators and tells what to do next.
 *
 * @example
 * const result = await fetchFeed({ url, etag, lastModified, failures, pollSeconds }, { policy });
 * if (result.kind === "fetched") parse(result.body, result.contentType, result.url);
 * store({ url: result.movedTo ?? url, nextFetchAt: result.nextFetchAt, failures: result.failures });
 */
export async function fetchFeed(state: FeedFetchState, options: FeedFetchOptions): Promise<FeedFetchResult> {
  void state;
  void options;
  throw new Error("not written yet");
}
