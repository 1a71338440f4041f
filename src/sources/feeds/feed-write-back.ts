// A feed's site that has a Micropub endpoint of its own (the feed's `micropub` option): the copies'
// links are written back there with a Micropub update (`add: {syndication: [...]}`), as possekit's
// endpoint does for its own posts. One way: the site's post is read first (q=source&url=) and
// only the links it lacks are added, never one it had from here before; its own links and targets
// never come back. The turns, the retries with backoff and the write-backs owed after a crash are
// the remote-Micropub source's (src/sources/micropub/link-write-back.ts).
import type { Database } from "../../contract/database.ts";
import type { KnownPosts } from "../../contract/known-posts.ts";
import type { Logger } from "../../contract/logger.ts";
import { fromEnv } from "../../contract/options/option-schemas.ts";
import type { OutgoingFetchPolicy } from "../../net/safe-fetch.ts";
import { addedLinks } from "../micropub/link-merge.ts";
import { LinkWriteBack } from "../micropub/link-write-back.ts";
import { MicropubClient } from "../micropub/micropub-client.ts";
import type { FeedOptions } from "./feed-options.ts";

export interface FeedWriteBackDependencies {
  /** The origin of the feed's posts (`feed:<key>`). */
  origin: string;
  database: Database;
  known: KnownPosts;
  logger: Logger;
  policy: OutgoingFetchPolicy;
  /** Where the token is read from, at each request (a new token needs no restart). */
  env: NodeJS.ProcessEnv;
  /**
   * A feed added on the Feeds page: its token as saved there (opened from its sealed row), instead
   * of an environment variable, and its endpoint not trusted on a private address (decision 0054).
   */
  pageToken?: string | null;
  now?: () => number;
  signal?: AbortSignal;
}

/** Where a page feed's token is set, as a missing or refused token's message names it. */
export const PAGE_TOKEN_SETTING = "this feed's token field on the Feeds page";

/** The write-back of a feed with a `micropub` option; undefined for one without. */
export function feedWriteBack(feed: FeedOptions, deps: FeedWriteBackDependencies): LinkWriteBack | undefined {
  const micropub = feed.micropub;
  if (!micropub) return undefined;
  const fromPage = deps.pageToken !== undefined;
  const client = new MicropubClient({
    endpoint: micropub.endpoint,
    token: fromPage ? () => deps.pageToken ?? undefined : () => fromEnv(deps.env, micropub.tokenEnv),
    tokenSetting: fromPage ? PAGE_TOKEN_SETTING : micropub.tokenEnv,
    // The configuration file's endpoint is allowed by the client; the rest is the host's rule.
    fetchPolicy: { ...(deps.policy.allowPrivate ? { allowPrivate: true } : {}) },
    trustEndpoint: !fromPage,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  return new LinkWriteBack({
    origin: deps.origin,
    client,
    database: deps.database,
    known: deps.known,
    logger: deps.logger,
    merge: addedLinks,
    oneWay: true,
    ...(deps.now ? { now: deps.now } : {}),
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
}
