// Fetching a feed politely (decision 0037): one conditional GET through the outgoing-fetch rules
// (src/net/safe-fetch.ts), and a verdict the feed source can store as it is: what came back, which
// URL and validators to keep, and when to ask again. It decides nothing about the entries.
import {
  OutgoingFetchError,
  type OutgoingFetchPolicy,
  type SafeRedirect,
  type SafeResponse,
  safeFetch,
} from "../../../net/safe-fetch.ts";
import { backoffMs } from "./backoff.ts";
import { freshSeconds } from "./freshness.ts";
import { retryAfterMs } from "./retry-after.ts";
import { feedUserAgent } from "./user-agent.ts";

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
   * Set when the feed moved for good (301/308, from the stored URL on) and the new place answered
   * 200 or 304: the URL to store in place of FeedFetchState.url. Temporary redirects (302/303/307)
   * are followed but never stored, and neither is a move to a place that fails (a site's mistake).
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
  const now = options.now ?? Date.now;
  const pollSeconds = state.pollSeconds ?? DEFAULT_POLL_SECONDS;
  const failed = (state.failures ?? 0) + 1;
  const maxBytes = options.maxBytes ?? DEFAULT_FEED_MAX_BYTES;
  const headers: Record<string, string> = {
    accept: ACCEPT,
    "user-agent": options.userAgent ?? feedUserAgent(options.policy.ownSite),
  };
  if (state.etag) headers["if-none-match"] = state.etag;
  if (state.lastModified) headers["if-modified-since"] = state.lastModified;

  let response: SafeResponse;
  try {
    response = await safeFetch(state.url, {
      policy: options.policy,
      maxBytes,
      timeoutMs: options.timeoutMs ?? DEFAULT_FEED_TIMEOUT_MS,
      maxRedirects: MAX_REDIRECTS,
      headers,
      decompress: true,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if (!(error instanceof OutgoingFetchError)) throw error;
    return failure(error, maxBytes, now() + backoffMs(failed, pollSeconds), failed);
  }

  const status = response.status;
  if (status === 304) {
    return {
      kind: "not-modified",
      nextFetchAt: now() + freshSeconds(response.headers, now(), pollSeconds) * 1000,
      failures: 0,
      validators: {
        etag: response.headers.get("etag") ?? state.etag ?? null,
        lastModified: response.headers.get("last-modified") ?? state.lastModified ?? null,
      },
      ...moved(response.redirects),
    };
  }
  if (status === 410) {
    return {
      kind: "gone",
      nextFetchAt: null,
      failures: failed,
      status: 410,
      message: `${response.url} answered 410 Gone: the site removed this feed, so it is no longer fetched.`,
    };
  }
  if (!response.ok) {
    const asked = retryAfterMs(response.headers.get("retry-after"), now());
    return {
      kind: "backoff",
      nextFetchAt: now() + (asked ?? backoffMs(failed, pollSeconds)),
      failures: failed,
      reason: status === 429 ? "rate-limited" : status === 503 ? "unavailable" : "http-error",
      status,
      retryAfter: asked !== undefined,
      message: `${response.url} answered ${status}${response.statusText ? ` ${response.statusText}` : ""}`,
    };
  }
  const contentType = response.headers.get("content-type");
  const notAFeed = notFeedBytes(contentType, response.body.byteLength);
  if (notAFeed) {
    return {
      kind: "refused",
      nextFetchAt: now() + backoffMs(failed, pollSeconds),
      failures: failed,
      reason: "bad-content",
      message: `${response.url}: ${notAFeed}`,
    };
  }
  return {
    kind: "fetched",
    nextFetchAt: now() + freshSeconds(response.headers, now(), pollSeconds) * 1000,
    failures: 0,
    body: response.body,
    contentType,
    url: response.url,
    validators: {
      etag: response.headers.get("etag"),
      lastModified: response.headers.get("last-modified"),
    },
    headers: response.headers,
    ...moved(response.redirects),
  };
}

// Feeds first, by their own types; then generic XML and JSON; then an HTML page (its h-feed).
const ACCEPT = [
  "application/atom+xml",
  "application/rss+xml",
  "application/feed+json",
  "application/rdf+xml;q=0.9",
  "application/json;q=0.9",
  "application/xml;q=0.8",
  "text/xml;q=0.8",
  "text/html;q=0.7",
  "*/*;q=0.1",
].join(", ");

const MAX_REDIRECTS = 5;

/**
 * The URL to store after the redirects followed: the target of the permanent ones (301, 308) from
 * the stored URL on, up to the first temporary one (whose target may change tomorrow).
 */
function moved(redirects: SafeRedirect[]): { movedTo?: string } {
  let movedTo: string | undefined;
  for (const redirect of redirects) {
    if (redirect.status !== 301 && redirect.status !== 308) break;
    movedTo = redirect.location;
  }
  return movedTo === undefined ? {} : { movedTo };
}

/** Why a 2xx answer cannot be a feed (media, fonts, nothing at all); undefined when it may be one. */
function notFeedBytes(contentType: string | null, size: number): string | undefined {
  if (size === 0) return "the answer is empty, not a feed";
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (/^(image|audio|video|font)\//.test(type)) return `the answer is ${type}, not a feed`;
  return undefined;
}

function failure(
  error: OutgoingFetchError,
  maxBytes: number,
  nextFetchAt: number,
  failures: number,
): FeedBackoff | FeedRefused {
  switch (error.kind) {
    case "timeout":
    case "unreachable":
      return {
        kind: "backoff",
        nextFetchAt,
        failures,
        reason: error.kind,
        retryAfter: false,
        message: error.message,
      };
    case "refused":
      return {
        kind: "refused",
        nextFetchAt,
        failures,
        reason: "private-address",
        message: `${error.message} (set fetch.allowPrivate to true to read feeds on your own network)`,
      };
    case "too-large":
      return {
        kind: "refused",
        nextFetchAt,
        failures,
        reason: "too-large",
        message: `${error.url}: the feed is larger than ${megabytes(maxBytes)} (decompressed); it was not read further`,
      };
    case "undecodable":
      return { kind: "refused", nextFetchAt, failures, reason: "bad-content", message: error.message };
    case "invalid-url":
    case "too-many-redirects":
      return { kind: "refused", nextFetchAt, failures, reason: error.kind, message: error.message };
  }
}

function megabytes(bytes: number): string {
  const value = bytes / (1024 * 1024);
  return `${Number.isInteger(value) ? value : value.toFixed(1)} MB`;
}
