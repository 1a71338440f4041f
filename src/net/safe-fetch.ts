// The one way to fetch a URL that came from a post (a photo, the post page itself, a link card's
// image, an IndieAuth client's metadata): the address actually connected to is checked, at every
// redirect, so neither a private address in the post nor a public name that resolves to one (or
// redirects to one) lets a client read what sits behind the server. A redirect to another origin
// is followed without the caller's credentials (redirect-credentials.ts). Configured service URLs (the
// Mastodon instance and so on) are the user's own choice and do not come through here.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import type { Readable, Transform } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { isPrivateAddress } from "./private-addresses.ts";
import { headersForRedirect } from "./redirect-credentials.ts";

export interface OutgoingFetchPolicy {
  /** The user's own site (`publication.me`): URLs under it are always allowed, wherever it runs. */
  ownSite?: string;
  /** `fetch.allowPrivate`: for a home network where the photos live on a private address. */
  allowPrivate?: boolean;
}

export interface SafeFetchOptions {
  policy: OutgoingFetchPolicy;
  /** Most bytes of body read. */
  maxBytes: number;
  /** Past maxBytes: "error" refuses the answer (the default); "truncate" keeps the first maxBytes. */
  overflow?: "error" | "truncate";
  /** For the whole exchange, redirects included. */
  timeoutMs?: number;
  maxRedirects?: number;
  /**
   * "manual": a redirect is answered as it came (its status and Location), for the caller to decide
   * whether and how to follow it under its own rules (a WebSub hub's 307 repeats a POST). Default "follow".
   */
  redirect?: "follow" | "manual";
  /** The caller's own cancellation (a target's timeout). */
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /**
   * Names of the caller's headers that carry a credential besides Authorization, Cookie and
   * Proxy-Authorization: like those, never sent on after a redirect to another origin.
   */
  credentialHeaders?: readonly string[];
  /** POST sends `body` (a webhook out); a POST is never redirected. Default GET. */
  method?: "GET" | "POST";
  body?: string;
  /**
   * Asks for gzip, deflate or br and decodes the answer; maxBytes then counts the decoded bytes as
   * they stream, so a small compressed body that would inflate past the limit is cut off early.
   */
  decompress?: boolean;
}

/** One redirect followed: the URL that answered with it, its status and where it led. */
export interface SafeRedirect {
  url: string;
  status: number;
  location: string;
}

export interface SafeResponse {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  statusText: string;
  ok: boolean;
  headers: Headers;
  body: Uint8Array<ArrayBuffer>;
  /** True when overflow is "truncate" and the body was longer than maxBytes. */
  truncated: boolean;
  /** The redirects followed to reach `url`, in order (a feed stores a permanent one's target). */
  redirects: SafeRedirect[];
}

export type OutgoingFetchFailure =
  | "invalid-url"
  | "refused"
  | "too-many-redirects"
  | "too-large"
  | "timeout"
  | "unreachable"
  | "undecodable";

/** Why a URL could not be fetched. Messages never say what answered on a refused address. */
export class OutgoingFetchError extends Error {
  readonly kind: OutgoingFetchFailure;
  readonly url: string;
  /** For "too-large": the size the server declared, when it did. */
  declaredBytes?: number;

  constructor(kind: OutgoingFetchFailure, url: string, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "OutgoingFetchError";
    this.kind = kind;
    this.url = url;
  }
}

export const DEFAULT_OUTGOING_TIMEOUT_MS = 15_000;
export const DEFAULT_MAX_REDIRECTS = 3;
const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/** A private address refused by the lookup, told apart from other connection errors. */
class RefusedAddress extends Error {}

/** Whether a connection failed because its host has only private addresses (publicOnlyLookup). */
export function isRefusedAddress(error: unknown): boolean {
  return error instanceof RefusedAddress;
}

function refused(url: string): OutgoingFetchError {
  return new OutgoingFetchError("refused", url, `${url}: refused: private address`);
}

/** Whether `url` lies under the user's own site: same origin, and under its path. */
export function isUnderOwnSite(url: URL, ownSite: string | undefined): boolean {
  if (!ownSite) return false;
  let own: URL;
  try {
    own = new URL(ownSite);
  } catch {
    return false;
  }
  if (url.origin !== own.origin) return false;
  const base = own.pathname.endsWith("/") ? own.pathname : `${own.pathname}/`;
  return base === "/" || url.pathname === base.slice(0, -1) || url.pathname.startsWith(base);
}

/**
 * A lookup that hands the connection only the public addresses `resolve` finds, and fails when there
 * are none. Tests pass their own `resolve` rather than replacing dns.lookup, which every connection of
 * the process shares (a replaced one answered another file's connections in the same test process).
 */
export const publicOnlyLookupVia =
  (resolve: typeof dnsLookup): LookupFunction =>
  (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) {
        callback(error, "", 0);
        return;
      }
      const allowed = addresses.filter((entry) => !isPrivateAddress(entry.address));
      const first = allowed[0];
      if (!first) {
        callback(new RefusedAddress(hostname), "", 0);
        return;
      }
      // net asks for every address (all: true) when it races IPv4 and IPv6; older callers ask for one.
      if ((options as { all?: boolean }).all)
        (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, allowed);
      else callback(null, first.address, first.family);
    });
  };

/** dns.lookup that hands the connection only public addresses, and fails when there are none. */
export const publicOnlyLookup: LookupFunction = publicOnlyLookupVia(dnsLookup);

interface Hop {
  response: IncomingMessage;
}

function request(
  url: URL,
  guarded: boolean,
  headers: Record<string, string>,
  signal: AbortSignal,
  method: "GET" | "POST" = "GET",
  body?: string,
) {
  const client = url.protocol === "https:" ? https : http;
  return new Promise<Hop>((resolve, reject) => {
    const outgoing = client.request(
      url,
      {
        method,
        headers: { "user-agent": "possekit", ...headers },
        signal,
        agent: false,
        ...(guarded ? { lookup: publicOnlyLookup } : {}),
      },
      (response) => resolve({ response }),
    );
    outgoing.on("error", reject);
    outgoing.end(method === "POST" ? body : undefined);
  });
}

/** Content codings decodeBody understands (RFC 9110 8.4.1; x-gzip is gzip's old name). */
const decoders: Record<string, () => Transform> = {
  gzip: createGunzip,
  "x-gzip": createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};
const ACCEPT_ENCODING = "gzip, deflate, br";

/** The answer's body, decoded when asked and the answer is encoded; null for an unknown coding. */
function decodedStream(response: IncomingMessage, decompress: boolean): Readable | null {
  const coding = (response.headers["content-encoding"] ?? "").trim().toLowerCase();
  if (!decompress || coding === "" || coding === "identity") return response;
  const decoder = decoders[coding];
  if (!decoder) return null;
  const stream = decoder();
  // An error of the answer (the connection cut) ends the decoder with it, so the reader sees it.
  response.on("error", (error) => stream.destroy(error));
  response.pipe(stream);
  return stream;
}

async function readBody(
  response: IncomingMessage,
  maxBytes: number,
  overflow: "error" | "truncate",
  url: string,
  decompress = false,
): Promise<{ body: Uint8Array<ArrayBuffer>; truncated: boolean }> {
  const tooLarge = (declaredBytes?: number) => {
    const error = new OutgoingFetchError(
      "too-large",
      url,
      `${url}: the answer is larger than ${maxBytes} bytes`,
    );
    if (declaredBytes !== undefined) error.declaredBytes = declaredBytes;
    return error;
  };
  const source = decodedStream(response, decompress);
  if (!source) {
    response.destroy();
    const coding = response.headers["content-encoding"];
    throw new OutgoingFetchError("undecodable", url, `${url}: the answer is encoded as "${coding}"`);
  }
  // A declared length counts the bytes on the wire: it bounds the body only when nothing decodes it.
  const declared = Number(response.headers["content-length"]);
  if (source === response && overflow === "error" && Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    throw tooLarge(declared);
  }
  let answerFailed = false;
  response.once("error", () => {
    answerFailed = true;
  });
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of source) {
      const buffer = chunk as Buffer;
      if (size + buffer.length > maxBytes) {
        // Both ends closed at once: the server stops sending, the decoder stops inflating.
        source.destroy();
        response.destroy();
        if (overflow === "error") throw tooLarge();
        chunks.push(buffer.subarray(0, maxBytes - size));
        size = maxBytes;
        const body = new Uint8Array(size);
        body.set(Buffer.concat(chunks));
        return { body, truncated: true };
      }
      chunks.push(buffer);
      size += buffer.length;
    }
  } catch (error) {
    if (error instanceof OutgoingFetchError) throw error;
    // The decoder failed on bytes that arrived whole: they are not what the coding says.
    if (source !== response && !answerFailed) {
      response.destroy();
      throw new OutgoingFetchError("undecodable", url, `${url}: the compressed answer is corrupt`, error);
    }
    throw error;
  }
  const body = new Uint8Array(size);
  body.set(Buffer.concat(chunks, size));
  return { body, truncated: false };
}

function headersOf(response: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = response.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    try {
      headers.append(raw[index] as string, raw[index + 1] as string);
    } catch {
      // A header value fetch's Headers cannot hold: nothing we read depends on it.
    }
  }
  return headers;
}

function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return (error as NodeJS.ErrnoException).code ?? error.message;
}

/**
 * GETs `url` under the outgoing-fetch rules. Answers any status (the caller decides what a 404
 * means); throws OutgoingFetchError for a refused address, too many redirects, too large a body, a
 * timeout or no answer, and rethrows the caller's own abort reason when its signal fired.
 */
export async function safeFetch(url: string, options: SafeFetchOptions): Promise<SafeResponse> {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_OUTGOING_TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const maxRedirects = options.method === "POST" ? 0 : (options.maxRedirects ?? DEFAULT_MAX_REDIRECTS);
  const redirectsFollowed: SafeRedirect[] = [];
  let headers: Record<string, string> = options.decompress
    ? { "accept-encoding": ACCEPT_ENCODING, ...options.headers }
    : { ...options.headers };
  let current: URL;
  try {
    current = new URL(url);
  } catch {
    throw new OutgoingFetchError("invalid-url", url, `${url}: not an absolute URL`);
  }
  for (let redirects = 0; ; redirects++) {
    const href = current.href;
    if (current.protocol !== "http:" && current.protocol !== "https:")
      throw new OutgoingFetchError("invalid-url", href, `${href}: only http and https URLs are fetched`);
    const guarded = !options.policy.allowPrivate && !isUnderOwnSite(current, options.policy.ownSite);
    // A literal address never reaches the lookup, so it is checked here.
    const literal = current.hostname.replace(/^\[|\]$/g, "");
    if (guarded && isIP(literal) && isPrivateAddress(literal)) throw refused(href);

    let hop: Hop;
    try {
      hop = await request(current, guarded, headers, signal, options.method, options.body);
    } catch (error) {
      if (error instanceof RefusedAddress) throw refused(href);
      if (options.signal?.aborted) throw options.signal.reason ?? error;
      if (timeout.aborted) throw new OutgoingFetchError("timeout", href, `${href}: no answer in time`, error);
      throw new OutgoingFetchError(
        "unreachable",
        href,
        `${href}: could not connect (${describeCause(error)})`,
        error,
      );
    }
    const { response } = hop;
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (redirectStatuses.has(status) && location && options.redirect !== "manual") {
      response.resume();
      if (redirects >= maxRedirects)
        throw new OutgoingFetchError(
          "too-many-redirects",
          href,
          `${href}: more than ${maxRedirects} redirects`,
        );
      let next: URL;
      try {
        next = new URL(location, current);
      } catch {
        throw new OutgoingFetchError("invalid-url", href, `${href}: redirects to an invalid URL`);
      }
      // Once left behind, a credential stays behind, even if a later hop comes back to its origin.
      headers = headersForRedirect(headers, current, next, options.credentialHeaders);
      current = next;
      redirectsFollowed.push({ url: href, status, location: current.href });
      continue;
    }
    try {
      const { body, truncated } = await readBody(
        response,
        options.maxBytes,
        options.overflow ?? "error",
        href,
        options.decompress,
      );
      return {
        url: href,
        status,
        statusText: response.statusMessage ?? "",
        ok: status >= 200 && status < 300,
        headers: headersOf(response),
        body,
        truncated,
        redirects: redirectsFollowed,
      };
    } catch (error) {
      if (error instanceof OutgoingFetchError) throw error;
      if (options.signal?.aborted) throw options.signal.reason ?? error;
      if (timeout.aborted) throw new OutgoingFetchError("timeout", href, `${href}: no answer in time`, error);
      throw new OutgoingFetchError("unreachable", href, `${href}: the answer broke off`, error);
    }
  }
}
