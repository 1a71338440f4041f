// Every configured feed, as one polled source on the scheduler (src/contract/polled-source.ts):
// at each of the scheduler's wake-ups each feed whose turn has come is read, and the scheduler
// sleeps no longer than until the earliest next read. Push reads a feed at once: a WebSub
// notification for its subscription, or a deploy webhook (every feed). WebSub leases are renewed
// from the same turns, and so are the write-backs owed to a site with a Micropub endpoint
// (feed-write-back.ts): once per feed's interval, sooner with a backoff after the site was down.
//
// @example
//   const feeds = new FeedSources({ feeds: options.feeds, database, known: server.knownPosts, logger,
//                                   policy, callbackUrl: (id) => `${site}${mountPath}/websub/${id}` });
//   new Scheduler(syndication, logger, { polled: () => [feeds] });
//   router.all("/websub/:id", async (req, res) => { … await feeds.webSubCallback({ … }) … });
import type { Database } from "../../contract/database.ts";
import type { KnownPosts } from "../../contract/known-posts.ts";
import type { Logger } from "../../contract/logger.ts";
import type { PolledSource } from "../../contract/polled-source.ts";
import type { OutgoingFetchPolicy } from "../../net/safe-fetch.ts";
import { type FeedOptions, feedKeyOf, feedOrigin } from "./feed-options.ts";
import { type FeedReport, FeedSource, type ReadSummary } from "./feed-source.ts";
import { FeedStore } from "./feed-store.ts";
import { feedWriteBack } from "./feed-write-back.ts";
import {
  handleWebSubCallback,
  SqlWebSubSubscriptionStore,
  type WebSubCallbackRequest,
  type WebSubCallbackResponse,
  WebSubSubscriber,
} from "./http/index.ts";
import { FeedParser } from "./parse/index.ts";

/** Leases end days after they begin; looking for renewals due this often is plenty. */
const RENEWAL_CHECK_MS = 10 * 60_000;

export interface FeedSourcesDependencies {
  feeds: readonly FeedOptions[];
  database: Database;
  known: KnownPosts;
  logger: Logger;
  policy: OutgoingFetchPolicy;
  /** The public callback URL of a WebSub subscription; absent: no WebSub (polling only). */
  callbackUrl?: (subscriptionId: string) => string;
  /** The platform tags naming a target (site-text.ts platformTags of its service's name). */
  platforms?: (uid: string) => readonly string[];
  /** Where a feed's Micropub token is read from (its `micropub.tokenEnv`), at each request. */
  env?: NodeJS.ProcessEnv;
  /** How long one feed's parse may take (feed-parser.ts PARSE_TIME_LIMIT_MS unless a test gives less). */
  parseTimeLimitMs?: number;
  now?: () => number;
  signal?: AbortSignal;
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class FeedSources implements PolledSource {
  readonly origin = "feeds";
  readonly feeds: readonly FeedSource[];
  readonly #deps: FeedSourcesDependencies;
  readonly #now: () => number;
  readonly #webSubStore: SqlWebSubSubscriptionStore;
  readonly #subscriber: WebSubSubscriber | undefined;
  #nextRenewalCheck: number;
  /** Reads started by a push, awaited at shutdown. */
  readonly #pushed = new Set<Promise<unknown>>();

  constructor(deps: FeedSourcesDependencies) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.#nextRenewalCheck = this.#now();
    this.#webSubStore = new SqlWebSubSubscriptionStore(deps.database);
    this.#subscriber = deps.callbackUrl
      ? new WebSubSubscriber({
          store: this.#webSubStore,
          policy: deps.policy,
          callbackUrl: deps.callbackUrl,
          now: this.#now,
        })
      : undefined;
    const store = new FeedStore(deps.database);
    // One parse thread for every feed; ended at shutdown, which also ends a parse under way.
    const parser = new FeedParser(
      deps.parseTimeLimitMs !== undefined ? { timeLimitMs: deps.parseTimeLimitMs } : {},
    );
    deps.signal?.addEventListener("abort", () => void parser.close(), { once: true });
    this.feeds = deps.feeds.map(
      (feed) =>
        new FeedSource({
          feed,
          writeBack: feedWriteBack(feed, {
            origin: feedOrigin(feedKeyOf(feed.url)),
            database: deps.database,
            known: deps.known,
            logger: deps.logger,
            policy: deps.policy,
            env: deps.env ?? {},
            now: this.#now,
            ...(deps.signal ? { signal: deps.signal } : {}),
          }),
          database: deps.database,
          store,
          known: deps.known,
          logger: deps.logger,
          policy: deps.policy,
          subscriber: this.#subscriber,
          platforms: deps.platforms,
          parser,
          now: this.#now,
          ...(deps.signal ? { signal: deps.signal } : {}),
        }),
    );
  }

  nextPollAt(): Date | null {
    let soonest: number | null = this.#subscriber ? this.#nextRenewalCheck : null;
    for (const feed of this.feeds)
      for (const next of [feed.nextFetchAt()?.getTime(), feed.writeBack?.nextPollAt()?.getTime()])
        if (next !== undefined && (soonest === null || next < soonest)) soonest = next;
    return soonest === null ? null : new Date(soonest);
  }

  /** Reads each feed whose turn has come, one after another; one that fails never stops the others. */
  async pollIfDue(): Promise<void> {
    for (const feed of this.feeds) {
      if (this.#deps.signal?.aborted) return;
      try {
        await feed.pollIfDue();
      } catch (error) {
        if (this.#deps.signal?.aborted) return;
        this.#deps.logger.error(`Could not read the feed ${feed.key}`, { error: describe(error) });
      }
    }
    for (const feed of this.feeds) await this.#writeBackIfDue(feed);
    if (this.#subscriber && this.#now() >= this.#nextRenewalCheck) {
      this.#nextRenewalCheck = this.#now() + RENEWAL_CHECK_MS;
      await this.#subscriber.renewDue().catch((error: unknown) => {
        this.#deps.logger.error("Could not renew the feeds' WebSub subscriptions", {
          error: describe(error),
        });
      });
    }
  }

  /** The write-backs owed to the feed's site, when its turn has come (never stops the others). */
  async #writeBackIfDue(feed: FeedSource): Promise<void> {
    const writeBack = feed.writeBack;
    if (!writeBack || this.#deps.signal?.aborted) return;
    try {
      await writeBack.pollIfDue(
        feed.feed.pollSeconds * 1000,
        async () => ({ writtenBack: await writeBack.writeBackDrifted() }),
        `write the links of ${feed.key} back to ${writeBack.endpoint}`,
      );
    } catch (error) {
      if (this.#deps.signal?.aborted) return;
      this.#deps.logger.error(`Could not write the links of ${feed.key} back`, { error: describe(error) });
    }
  }

  /** Reads every feed at once (a deploy webhook: the site has just changed). */
  async fetchAll(): Promise<ReadSummary[]> {
    return Promise.all(this.feeds.map((feed) => this.#push(feed)));
  }

  find(key: string): FeedSource | undefined {
    return this.feeds.find((feed) => feed.key === key);
  }

  reports(): Promise<FeedReport[]> {
    return Promise.all(this.feeds.map((feed) => feed.report()));
  }

  /**
   * Answers a request to a subscription's callback URL (the hub's verification, or a notification);
   * a correctly signed notification reads its feed at once, after the answer.
   */
  async webSubCallback(request: WebSubCallbackRequest): Promise<WebSubCallbackResponse> {
    const { response, event } = await handleWebSubCallback(request, {
      store: this.#webSubStore,
      now: this.#now,
    });
    if (event?.kind === "notified") {
      const feed = this.find(event.subscription.feedKey);
      if (feed) void this.#push(feed).catch(() => undefined);
    } else if (event?.kind === "ignored")
      this.#deps.logger.warn("A WebSub notification was ignored", { reason: event.reason });
    return response;
  }

  /** Resolves once no read is under way (for a shutdown, after aborting). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.#pushed]);
    await Promise.all(this.feeds.map((feed) => feed.idle()));
    await Promise.all(this.feeds.map((feed) => feed.writeBack?.idle()));
  }

  #push(feed: FeedSource): Promise<ReadSummary> {
    const read = feed.fetchNow().catch((error: unknown) => {
      this.#deps.logger.error(`Could not read the feed ${feed.key}`, { error: describe(error) });
      return { outcome: "skipped", recorded: { new: 0, sent: 0, changed: 0 } } satisfies ReadSummary;
    });
    this.#pushed.add(read);
    void read.finally(() => this.#pushed.delete(read));
    return read;
  }
}
