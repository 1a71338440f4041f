// A Micropub client for a server whose posts possekit syndicates (another possekit, Indiekit,
// WordPress's Micropub plug-in, micro.blog): it lists the posts (q=source, newest first, page by
// page), reads one by URL (q=source&url=) and writes the copies' links back (a JSON update).
//
// Every request goes through the outgoing-fetch rules (src/net/safe-fetch.ts) with a timeout and
// a size cap. The endpoint itself is the user's choice, so its own origin is allowed wherever it
// runs; a redirect elsewhere meets the usual private-address check, and is followed without the
// token (safe-fetch drops credentials when the origin changes). The token never leaves the
// Authorization header: not in a URL, a log line or an error message.
// The Micropub syndicator speaks the same wire (src/contract/micropub-wire.ts) through its own
// transport and errors: two callers, not one client (decision 0065).
//
// @example
//   const client = new MicropubClient({
//     endpoint: "https://indiekit.example/micropub",
//     token: () => process.env.MICROPUB_TOKEN,
//     tokenSetting: "MICROPUB_TOKEN",
//     fetchPolicy: {},
//   });
//   for await (const page of client.pages({ limit: 50 })) console.log(page.posts.map((p) => p.url));
import { z } from "zod";
import {
  type MicropubUpdate,
  micropubErrorWords,
  micropubHeaders,
  micropubQueryUrl,
  micropubUpdateBody,
} from "../../contract/micropub-wire.ts";
import { retryAfterDelayMs } from "../../net/retry-after.ts";
import {
  OutgoingFetchError,
  type OutgoingFetchPolicy,
  type SafeResponse,
  safeFetch,
} from "../../net/safe-fetch.ts";
import { MicropubSourceError } from "./micropub-source-error.ts";
import { parseUntrustedJson, type RemotePost, remotePostOf } from "./remote-post.ts";

/** A page of a hundred posts with long articles fits; a server answering more is refused. */
export const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;
/** possekit answers at most 100 a page, Indiekit 40 unless asked: 50 suits both. */
export const DEFAULT_PAGE_SIZE = 50;

export interface MicropubClientOptions {
  /** The server's Micropub endpoint (absolute URL; may carry a query, as WordPress's does). */
  endpoint: string;
  /** The access token, read when a request is made (an environment variable, a request's token). */
  token: () => string | undefined;
  /** Where the token is set, named when it is missing or refused, e.g. "MICROPUB_TOKEN". */
  tokenSetting: string;
  /** The host's rules (fetch.allowPrivate); the endpoint's own origin is allowed unless `trustEndpoint` is false. */
  fetchPolicy: OutgoingFetchPolicy;
  /**
   * Whether the endpoint is trusted wherever it runs (the configuration file names it): true by
   * default. An endpoint typed on a page is not (decision 0054): on a private address only with
   * fetch.allowPrivate, checked at every request.
   */
  trustEndpoint?: boolean;
  timeoutMs?: number;
  maxBytes?: number;
  /** Ends every request under way (the server shutting down); they throw its reason. */
  signal?: AbortSignal;
}

export interface RemotePage {
  posts: RemotePost[];
  /** Items that were not posts with a URL (skipped, counted for the log). */
  skipped: number;
  /** The cursor of the next (older) page, when there is one. */
  after?: string;
}

const cursor = z.union([z.string().min(1), z.number()]).transform(String);
const listing = z.object({
  items: z.array(z.unknown()),
  paging: z.object({ after: cursor.optional(), before: cursor.optional() }).partial().optional(),
});

/** Statuses after which the same request may pass later. */
function passesWithTime(status: number): boolean {
  return status >= 500 || status === 408 || status === 425 || status === 429;
}

function retryAfterSeconds(response: SafeResponse): number | undefined {
  const asked = retryAfterDelayMs(response.headers.get("retry-after"), Date.now());
  return asked === undefined ? undefined : Math.ceil(asked / 1000);
}

/** The server's own words for an error answer: error_description, error, or a short text. */
function serverWords(response: SafeResponse): string {
  const text = new TextDecoder().decode(response.body).trim();
  try {
    const words = micropubErrorWords(parseUntrustedJson(text))?.message;
    if (words) return words.slice(0, 300);
  } catch {
    // Not JSON: the status says enough, unless the text is short and plain.
  }
  const plain = !text.startsWith("<") && text.length > 0 && text.length <= 200;
  return plain ? text : `${response.status} ${response.statusText}`.trim();
}

export class MicropubClient {
  readonly endpoint: string;
  /** How long one request may take. */
  readonly timeoutMs: number;
  readonly #options: MicropubClientOptions;
  readonly #policy: OutgoingFetchPolicy;

  constructor(options: MicropubClientOptions) {
    this.#options = options;
    this.endpoint = options.endpoint;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const origin = new URL(options.endpoint).origin;
    this.#policy =
      options.trustEndpoint === false
        ? { ...options.fetchPolicy }
        : { ...options.fetchPolicy, ownSite: `${origin}/` };
  }

  /** One page of the newest posts, from the start or from `after` (older posts). */
  async listPage(options: { limit?: number; after?: string } = {}): Promise<RemotePage> {
    const query: Record<string, string> = {
      q: "source",
      limit: String(options.limit ?? DEFAULT_PAGE_SIZE),
    };
    if (options.after !== undefined) query.after = options.after;
    const response = await this.#request("GET", this.#url(query));
    if (!response.ok) throw this.#failure(response, "q=source");
    const parsed = listing.safeParse(this.#json(response, "q=source"));
    if (!parsed.success)
      throw new MicropubSourceError(
        "invalid",
        `${this.endpoint} answered q=source without an "items" list; is it a Micropub endpoint that lists posts?`,
        { status: response.status },
      );
    const posts: RemotePost[] = [];
    let skipped = 0;
    for (const item of parsed.data.items) {
      const post = remotePostOf(item);
      if (post) posts.push(post);
      else skipped += 1;
    }
    const after = parsed.data.paging?.after;
    return { posts, skipped, ...(after !== undefined && after !== options.after ? { after } : {}) };
  }

  /**
   * The pages of posts, newest first, until the server has no more or `maxPosts` were listed. A
   * server that hands back a cursor it gave before ends the walk rather than looping.
   */
  async *pages(options: { limit?: number; maxPosts?: number } = {}): AsyncGenerator<RemotePage> {
    const seen = new Set<string>();
    let listed = 0;
    let after: string | undefined;
    for (;;) {
      const page = await this.listPage({
        ...(options.limit ? { limit: options.limit } : {}),
        ...(after ? { after } : {}),
      });
      listed += page.posts.length + page.skipped;
      yield page;
      if (page.after === undefined || seen.has(page.after)) return;
      if (options.maxPosts !== undefined && listed >= options.maxPosts) return;
      if (page.posts.length + page.skipped === 0) return;
      seen.add(page.after);
      after = page.after;
    }
  }

  /**
   * One post by its URL, or null when the server has none there (possekit and Indiekit answer 400
   * for an unknown URL, others 404 or 410). possekit also answers 400 for a deleted post.
   */
  async read(url: string): Promise<RemotePost | null> {
    const response = await this.#request("GET", this.#url({ q: "source", url }));
    if (response.status === 400 || response.status === 404 || response.status === 410) return null;
    if (!response.ok) throw this.#failure(response, "q=source&url=");
    const body = this.#json(response, "q=source&url=");
    // A server that answers only the properties asked for leaves out the type; url is always there.
    const post = remotePostOf(body);
    if (!post)
      throw new MicropubSourceError(
        "invalid",
        `${this.endpoint} answered q=source&url=${url} with something that is not a post`,
        {
          status: response.status,
        },
      );
    return post;
  }

  /** Sends a Micropub update of the post at `url` (JSON, as Indiekit's own syndicate endpoint does). */
  async update(url: string, update: MicropubUpdate): Promise<void> {
    const body = micropubUpdateBody(url, update);
    const response = await this.#request("POST", this.endpoint, body);
    if (!response.ok) throw this.#failure(response, "the update");
  }

  #url(query: Record<string, string>): string {
    return micropubQueryUrl(this.endpoint, query);
  }

  async #request(method: "GET" | "POST", url: string, body?: string): Promise<SafeResponse> {
    const token = this.#options.token();
    if (!token)
      throw new MicropubSourceError(
        "refused",
        `no token for ${this.endpoint}: set ${this.#options.tokenSetting} to a token it issued with the update scope`,
      );
    try {
      return await safeFetch(url, {
        policy: this.#policy,
        method,
        maxBytes: this.#options.maxBytes ?? DEFAULT_MAX_BYTES,
        timeoutMs: this.timeoutMs,
        headers: micropubHeaders(token, body === undefined ? undefined : "application/json"),
        ...(body === undefined ? {} : { body }),
        ...(this.#options.signal ? { signal: this.#options.signal } : {}),
      });
    } catch (error) {
      if (!(error instanceof OutgoingFetchError)) throw error;
      // A refused address or an answer too large is the same at the next poll: the user's to fix.
      const kind = error.kind === "timeout" || error.kind === "unreachable" ? "unavailable" : "invalid";
      throw new MicropubSourceError(kind, `${this.endpoint}: ${error.message}`, { cause: error });
    }
  }

  #json(response: SafeResponse, what: string): unknown {
    try {
      return parseUntrustedJson(new TextDecoder().decode(response.body));
    } catch {
      throw new MicropubSourceError(
        "invalid",
        `${this.endpoint} answered ${what} with something that is not JSON`,
        {
          status: response.status,
        },
      );
    }
  }

  #failure(response: SafeResponse, what: string): MicropubSourceError {
    const status = response.status;
    const words = serverWords(response);
    const retryAfter = retryAfterSeconds(response);
    const extra = retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter };
    if (status === 401 || status === 403)
      return new MicropubSourceError(
        "refused",
        `the token in ${this.#options.tokenSetting} was refused by ${this.endpoint}: ${words}`,
        { status },
      );
    if (passesWithTime(status))
      return new MicropubSourceError(
        "unavailable",
        `${this.endpoint} answered ${what} with ${status}: ${words}`,
        {
          status,
          ...extra,
        },
      );
    return new MicropubSourceError("invalid", `${this.endpoint} refused ${what} (${status}): ${words}`, {
      status,
    });
  }
}
