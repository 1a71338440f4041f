// Every configured feed, as one polled source on the scheduler (src/contract/polled-source.ts):
// at each of the scheduler's wake-ups each feed whose turn has come is read, and the scheduler
// sleeps no longer than until the earliest next read. Push reads a feed at once: a WebSub
// notification for its subscription, or a deploy webhook (every feed); a burst of WebSub
// deliveries for one feed makes one read at once and one more PUSH_SPACING_MS later at most.
// WebSub leases are renewed from the same turns, each at its own renewal time (the scheduler wakes
// for it), and the subscriptions of feeds no longer configured are ended at their hubs at the first
// turn. So are the write-backs owed to a site with a Micropub endpoint (feed-write-back.ts): once
// per feed's interval, sooner with a backoff after the site was down.
//
// The feeds are those of the configuration file and those added on the Feeds page (pageFeeds): the
// latter are read again at each turn and at once when the page changes them (refresh), so that a
// feed added starts, a feed changed reads by its new options, and a feed removed is unsubscribed
// from its hub and never renewed, without a restart. The configuration file wins a URL both name.
//
// @example
//   const feeds = new FeedSources({ feeds: options.feeds, database, known: server.knownPosts, logger,
//                                   policy, callbackUrl: (id) => `${site}${mountPath}/websub/${id}` });
//   new Scheduler(syndication, logger, { polled: () => [feeds] });
//   router.all("/websub/:id", async (req, res) => { … await feeds.webSubCallback({ … }) … });

import type { Database } from "../../contract/database.ts";
import { databaseNow } from "../../contract/database-now.ts";
import type { KnownPosts } from "../../contract/known-posts.ts";
import type { Logger } from "../../contract/logger.ts";
import type { PolledSource } from "../../contract/polled-source.ts";
import type { SecretSealer } from "../../contract/secret-sealer.ts";
import type { OutgoingFetchPolicy } from "../../net/safe-fetch.ts";
import type { LinkWriteBack } from "../micropub/link-write-back.ts";
import { type Discovery, discoverFeeds } from "./discover-feeds.ts";
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
import type { PageFeedRun } from "./page-feed-store.ts";
import { FeedParser } from "./parse/index.ts";

/**
 * The renewals this instance knows of are looked for at their own time; this often it also looks
 * for those it does not know of (a subscription another instance sharing the database verified).
 */
const RENEWAL_CHECK_MS = 10 * 60_000;

/**
 * A feed read for a WebSub delivery is followed by another for a later delivery no sooner than
 * this: a hub replaying deliveries (or anyone who learnt the callback) gets one read under way and
 * one after it, however many it sends.
 */
export const PUSH_SPACING_MS = 10_000;

/** The reads of one feed that WebSub deliveries asked for. */
interface PushState {
  /** When the last one began. */
  startedAt: number | null;
  running: Promise<ReadSummary> | undefined;
  /** A delivery came since the last began: one more read is owed, at startedAt + PUSH_SPACING_MS. */
  owed: boolean;
}

export interface FeedSourcesDependencies {
  /** The feeds of the configuration file. */
  feeds: readonly FeedOptions[];
  /**
   * The feeds added on the Feeds page, as they are now (read at each turn and at each refresh), each
   * with the Micropub token saved for its write-back.
   */
  pageFeeds?: () => Promise<readonly PageFeedRun[]>;
  /**
   * Told of each feed's write-back as the feed starts running (a page feed's too, added later), so
   * that the host tells it of each copy's link written to one of the feed's posts.
   */
  onWriteBack?: (writeBack: LinkWriteBack) => void;
  database: Database;
  known: KnownPosts;
  logger: Logger;
  policy: OutgoingFetchPolicy;
  /** The public callback URL of a WebSub subscription; absent: no WebSub (polling only). */
  callbackUrl?: (subscriptionId: string) => string;
  /** The host's secret box the subscriptions' secrets are sealed with (none: stored as they are). */
  sealer?: () => SecretSealer | null;
  /** The platform tags naming a target (site-text.ts platformTags of its service's name). */
  platforms?: (uid: string) => readonly string[];
  /** Where a feed's Micropub token is read from (its `micropub.tokenEnv`), at each request. */
  env?: NodeJS.ProcessEnv;
  /** How long one feed's parse may take (feed-parser.ts PARSE_TIME_LIMIT_MS unless a test gives less). */
  parseTimeLimitMs?: number;
  now?: () => number;
  signal?: AbortSignal;
  /**
   * Wakes the scheduler to ask nextPollAt again: a hub's verification (an HTTP request, between the
   * scheduler's turns) may bring a lease whose renewal comes before the scheduler's next wake-up.
   */
  wake?: () => void;
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class FeedSources implements PolledSource {
  readonly origin = "feeds";
  readonly #deps: FeedSourcesDependencies;
  #feeds: readonly FeedSource[];
  readonly #store: FeedStore;
  readonly #parser: FeedParser;
  /** Refreshes one at a time: two page changes in a row never build a feed twice. */
  #refreshing: Promise<unknown> = Promise.resolve();
  readonly #now: () => number;
  readonly #webSubStore: SqlWebSubSubscriptionStore;
  readonly #subscriber: WebSubSubscriber | undefined;
  /** The next look for renewals due: the earliest renewAt known, or the periodic look. */
  #nextRenewalCheck: number;
  /** Whether the subscriptions of feeds no longer configured have been ended (once, at the first turn). */
  #removedFeedsEnded = false;
  #configured: ReadonlySet<string>;
  /** Reads started by a push, awaited at shutdown. */
  readonly #pushed = new Set<Promise<unknown>>();
  readonly #pushes = new Map<string, PushState>();
  /** The token each running page feed was made with (undefined for the file's feeds). */
  readonly #pageTokens = new Map<string, string | null>();

  constructor(deps: FeedSourcesDependencies) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.#nextRenewalCheck = this.#now();
    this.#webSubStore = new SqlWebSubSubscriptionStore(deps.database, deps.sealer);
    this.#subscriber = deps.callbackUrl
      ? new WebSubSubscriber({
          store: this.#webSubStore,
          policy: deps.policy,
          callbackUrl: deps.callbackUrl,
          now: this.#now,
        })
      : undefined;
    this.#store = new FeedStore(deps.database, databaseNow(deps.now));
    // One parse thread for every feed; ended at shutdown, which also ends a parse under way.
    const parser = new FeedParser(
      deps.parseTimeLimitMs !== undefined ? { timeLimitMs: deps.parseTimeLimitMs } : {},
    );
    this.#parser = parser;
    deps.signal?.addEventListener("abort", () => void parser.close(), { once: true });
    this.#feeds = deps.feeds.map((feed) => this.#sourceOf(feed));
    this.#configured = new Set(this.#feeds.map((feed) => feed.key));
  }

  /** Every feed read now: the configuration file's, then the page's. */
  get feeds(): readonly FeedSource[] {
    return this.#feeds;
  }

  /** A running feed; `pageToken` for a page feed (its token as saved there, or null without one). */
  #sourceOf(feed: FeedOptions, pageToken?: string | null): FeedSource {
    const deps = this.#deps;
    const writeBack = feedWriteBack(feed, {
      origin: feedOrigin(feedKeyOf(feed.url)),
      database: deps.database,
      known: deps.known,
      logger: deps.logger,
      policy: deps.policy,
      env: deps.env ?? {},
      now: this.#now,
      ...(pageToken !== undefined ? { pageToken } : {}),
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
    if (writeBack) deps.onWriteBack?.(writeBack);
    return new FeedSource({
      feed,
      writeBack,
      database: deps.database,
      store: this.#store,
      known: deps.known,
      logger: deps.logger,
      policy: deps.policy,
      subscriber: this.#subscriber,
      platforms: deps.platforms,
      parser: this.#parser,
      now: this.#now,
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
  }

  /**
   * Reads the page's feeds again and takes them on: a new one is read at its first turn (now), a
   * changed one by its new options, a removed one is read no more and its WebSub subscription is
   * ended at its hub before this resolves (retried at the next turn when the hub fails). The keys of
   * the feeds it stopped reading.
   */
  refresh(): Promise<string[]> {
    const run = () => this.#refresh();
    const next = this.#refreshing.then(run, run);
    this.#refreshing = next.catch(() => undefined);
    return next;
  }

  async #refresh(): Promise<string[]> {
    const fromPage = this.#deps.pageFeeds ? await this.#deps.pageFeeds() : [];
    const fromFile = new Set(this.#deps.feeds.map((feed) => feedKeyOf(feed.url)));
    const wanted: Array<{ options: FeedOptions; micropubToken?: string | null }> = [
      ...this.#deps.feeds.map((options) => ({ options })),
      ...fromPage.filter((feed) => !fromFile.has(feedKeyOf(feed.options.url))),
    ];
    const current = new Map(this.#feeds.map((feed) => [feed.key, feed]));
    const same = (a: FeedOptions, b: FeedOptions) => JSON.stringify(a) === JSON.stringify(b);
    this.#feeds = wanted.map(({ options, micropubToken }) => {
      const key = feedKeyOf(options.url);
      const running = current.get(key);
      // A page feed's token replaced or forgotten makes it anew, as changed options do.
      const sameToken =
        micropubToken === undefined
          ? !this.#pageTokens.has(key)
          : this.#pageTokens.has(key) && this.#pageTokens.get(key) === micropubToken;
      if (running && same(running.feed, options) && sameToken) return running;
      if (micropubToken === undefined) this.#pageTokens.delete(key);
      else this.#pageTokens.set(key, micropubToken);
      return this.#sourceOf(options, micropubToken);
    });
    this.#configured = new Set(this.#feeds.map((feed) => feed.key));
    const removed = [...current.keys()].filter((key) => !this.#configured.has(key));
    for (const key of removed) this.#pushes.delete(key);
    if (removed.length > 0) {
      this.#removedFeedsEnded = false;
      if (this.#subscriber && !this.#deps.signal?.aborted)
        await this.#endRemovedFeeds(this.#subscriber).then(
          () => (this.#removedFeedsEnded = true),
          (error: unknown) =>
            this.#deps.logger.error("Could not end the WebSub subscriptions of feeds removed", {
              error: describe(error),
            }),
        );
    }
    // A feed just added is due now: the scheduler learns it.
    if (this.#feeds.some((feed) => !current.has(feed.key) || current.get(feed.key) !== feed))
      this.#deps.wake?.();
    return removed;
  }

  nextPollAt(): Date | null {
    // No feed left and every removed feed's subscription ended: nothing to read, nothing to renew.
    if (this.#feeds.length === 0 && this.#removedFeedsEnded && this.#pushes.size === 0) return null;
    let soonest: number | null = this.#subscriber ? this.#nextRenewalCheck : null;
    for (const push of this.#pushes.values())
      if (push.owed && !push.running && (soonest === null || owedAt(push) < soonest)) soonest = owedAt(push);
    for (const feed of this.feeds)
      for (const next of [feed.nextFetchAt()?.getTime(), feed.writeBack?.nextPollAt()?.getTime()])
        if (next !== undefined && (soonest === null || next < soonest)) soonest = next;
    return soonest === null ? null : new Date(soonest);
  }

  /** Reads each feed whose turn has come, one after another; one that fails never stops the others. */
  async pollIfDue(): Promise<void> {
    if (this.#deps.pageFeeds)
      await this.refresh().catch((error: unknown) => {
        this.#deps.logger.error("Could not read the feeds added on the Feeds page", {
          error: describe(error),
        });
      });
    for (const feed of this.feeds) {
      if (this.#deps.signal?.aborted) return;
      try {
        await feed.pollIfDue();
      } catch (error) {
        if (this.#deps.signal?.aborted) return;
        this.#deps.logger.error(`Could not read the feed ${feed.key}`, { error: describe(error) });
      }
    }
    for (const feed of this.feeds) await this.#readOwedPush(feed);
    for (const feed of this.feeds) await this.#writeBackIfDue(feed);
    if (this.#subscriber) await this.#keepSubscriptions(this.#subscriber);
  }

  /**
   * Ends the subscriptions of feeds no longer configured (once), renews the leases due, and learns
   * when the next one is due, so that the scheduler wakes for it however short the lease.
   */
  async #keepSubscriptions(subscriber: WebSubSubscriber): Promise<void> {
    const log = (what: string) => (error: unknown) => {
      this.#deps.logger.error(what, { error: describe(error) });
    };
    if (!this.#removedFeedsEnded && !this.#deps.signal?.aborted) {
      await this.#endRemovedFeeds(subscriber).then(
        () => (this.#removedFeedsEnded = true),
        log("Could not end the WebSub subscriptions of feeds no longer configured"),
      );
    }
    const now = this.#now();
    if (now < this.#nextRenewalCheck || this.#deps.signal?.aborted) return;
    this.#nextRenewalCheck = now + RENEWAL_CHECK_MS;
    await subscriber
      .renewDue(20, (feedKey) => this.#configured.has(feedKey))
      .catch(log("Could not renew the feeds' WebSub subscriptions"));
    const next = await this.#webSubStore.nextRenewalAt().catch(() => null);
    if (next !== null) this.#nextRenewalCheck = Math.min(this.#nextRenewalCheck, Math.max(next, now + 1_000));
  }

  async #endRemovedFeeds(subscriber: WebSubSubscriber): Promise<void> {
    for (const subscription of await this.#webSubStore.ofOtherFeeds([...this.#configured])) {
      const outcome = await subscriber.end(subscription);
      this.#deps.logger.info("Ended the WebSub subscription of a feed no longer configured", {
        feed: subscription.feedKey,
        hub: subscription.hub,
        detail: outcome.detail,
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

  /**
   * What the Feeds page finds at an address (discover-feeds.ts): fetched by the feeds' own rules
   * and parsed on their parse thread.
   */
  discover(url: string, signal?: AbortSignal): Promise<Discovery> {
    return discoverFeeds(url, {
      policy: this.#deps.policy,
      parser: this.#parser,
      ...(signal ? { signal } : {}),
    });
  }

  /** Reads every feed at once (a deploy webhook: the site has just changed). */
  async fetchAll(): Promise<ReadSummary[]> {
    return Promise.all(this.feeds.map((feed) => this.#read(feed)));
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
      wanted: (feedKey) => this.#configured.has(feedKey),
    });
    if (event?.kind === "notified") {
      const feed = this.find(event.subscription.feedKey);
      if (feed) this.#readForDelivery(feed);
    } else if (event?.kind === "verified" && event.subscription.renewAt !== null) {
      // The scheduler wakes for this lease's renewal, however soon it is.
      if (event.subscription.renewAt < this.#nextRenewalCheck) {
        this.#nextRenewalCheck = event.subscription.renewAt;
        this.#deps.wake?.();
      }
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

  /**
   * A WebSub delivery for the feed: read it now, unless a read for a delivery is under way or began
   * less than PUSH_SPACING_MS ago; then one more read is owed, which the scheduler's turn at
   * startedAt + PUSH_SPACING_MS makes (or the turn after the read under way, when that is later).
   */
  #readForDelivery(feed: FeedSource): void {
    let push = this.#pushes.get(feed.key);
    if (!push) {
      push = { startedAt: null, running: undefined, owed: false };
      this.#pushes.set(feed.key, push);
    }
    if (push.running || (push.startedAt !== null && this.#now() < owedAt(push))) {
      if (!push.owed) {
        push.owed = true;
        this.#deps.wake?.();
      }
      return;
    }
    this.#startPush(feed, push);
  }

  /** The read a delivery left owed, once its moment has come and no other read for one is under way. */
  async #readOwedPush(feed: FeedSource): Promise<void> {
    const push = this.#pushes.get(feed.key);
    if (!push?.owed || push.running || this.#now() < owedAt(push) || this.#deps.signal?.aborted) return;
    await this.#startPush(feed, push);
  }

  #startPush(feed: FeedSource, push: PushState): Promise<ReadSummary> {
    push.startedAt = this.#now();
    push.owed = false;
    const read = this.#read(feed);
    push.running = read;
    void read.finally(() => {
      push.running = undefined;
      // The read owed meanwhile: the scheduler learns when.
      if (push.owed) this.#deps.wake?.();
    });
    return read;
  }

  /** Reads the feed now (after a read of it under way), whatever its turn. */
  #read(feed: FeedSource): Promise<ReadSummary> {
    const read = feed.fetchNow().catch((error: unknown) => {
      this.#deps.logger.error(`Could not read the feed ${feed.key}`, { error: describe(error) });
      return { outcome: "skipped", recorded: { new: 0, sent: 0, changed: 0 } } satisfies ReadSummary;
    });
    this.#pushed.add(read);
    void read.finally(() => this.#pushed.delete(read));
    return read;
  }
}

const owedAt = (push: PushState) => (push.startedAt ?? 0) + PUSH_SPACING_MS;
