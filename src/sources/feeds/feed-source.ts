// One configured feed as a post source (decision 0034): each read fetches it politely (fetchFeed), parses
// it on the parse thread (FeedParser: never on the server's), keeps its `maxEntries` newest entries,
// decides what they mean (planRead) and keeps them as posts from elsewhere (KnownPosts, origin
// `feed:<key>`), whose copies the core then sends, follows and edits as it does the site's own. It
// never throws at its caller for what the site does: a failure is the feed's last error, shown to
// the user, and the next read is planned by the fetcher's verdict.
import type { Database } from "../../contract/database.ts";
import { KnownPostConflictError, type KnownPosts } from "../../contract/known-posts.ts";
import type { Logger } from "../../contract/logger.ts";
import { SITE_TEXT_PROPERTY } from "../../contract/syndicator.ts";
import type { OutgoingFetchPolicy } from "../../net/safe-fetch.ts";
import type { LinkWriteBack, LinkWriteBackReport } from "../micropub/link-write-back.ts";
import { planRead } from "./entry-plan.ts";
import { type FeedOptions, feedKeyOf, feedOrigin } from "./feed-options.ts";
import type { FeedRow, FeedStore, FetchOutcome, KnownEntry } from "./feed-store.ts";
import {
  discoverWebSub,
  type FeedFetched,
  type FeedFetchResult,
  fetchFeed,
  type WebSubSubscriber,
} from "./http/index.ts";
import { FeedParseError, FeedParser, type NewestEntries } from "./parse/index.ts";

/** A turn taken is held this long: an instance that dies mid-read leaves the feed to the next. */
const TURN_HOLD_MS = 5 * 60_000;

export interface FeedSourceDependencies {
  feed: FeedOptions;
  database: Database;
  store: FeedStore;
  known: KnownPosts;
  logger: Logger;
  /** `fetch.allowPrivate` and the user's own site: the rules of every outgoing fetch. */
  policy: OutgoingFetchPolicy;
  /** The site's Micropub endpoint, where the copies' links go (the feed's `micropub` option). */
  writeBack?: LinkWriteBack | undefined;
  /** WebSub: subscribes when the feed names a hub; absent, the feed is only polled. */
  subscriber?: WebSubSubscriber | undefined;
  /** The platform tags naming a target (site-text.ts platformTags of its service's name). */
  platforms?: ((uid: string) => readonly string[]) | undefined;
  /** The parse thread, shared by every feed (FeedSources); one of its own when absent. */
  parser?: FeedParser;
  /** Milliseconds; Date.now unless a test gives its clock. */
  now?: () => number;
  /** Aborted when the server shuts down. */
  signal?: AbortSignal;
}

/** A feed as the page and /health show it. */
export interface FeedReport {
  key: string;
  origin: string;
  /** Where it is fetched now (a permanent redirect moved it from the configured URL). */
  url: string;
  state: "ok" | "failing" | "held" | "stopped" | "new";
  nextFetchAt: Date | null;
  lastFetchAt: Date | null;
  lastSuccessAt: Date | null;
  lastError: string | null;
  notes: string[];
  entriesKnown: number;
  stoppedAt: Date | null;
  /** The write-back of the copies' links to the site's Micropub endpoint, when it has one. */
  writeBack: LinkWriteBackReport | null;
}

/** What one read did (for the log and the tests). */
export interface ReadSummary {
  outcome: FeedFetchResult["kind"] | "parse-error" | "held" | "skipped";
  recorded: { new: number; sent: number; changed: number };
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class FeedSource {
  readonly key: string;
  readonly origin: string;
  readonly feed: FeedOptions;
  /** The copies' links written back to the site (its `micropub` option); none without. */
  readonly writeBack: LinkWriteBack | undefined;
  readonly #deps: FeedSourceDependencies;
  readonly #now: () => number;
  readonly #parser: FeedParser;
  /** The next fetch as this process knows it; the row decides between instances. Null: stopped. */
  #nextFetchAt: Date | null;
  #loaded = false;
  /** Reads of this feed one at a time: a push during a poll waits for it. */
  #queue: Promise<unknown> = Promise.resolve();
  /** Bodies parsed by this process (a 304 parses nothing). */
  parses = 0;

  constructor(deps: FeedSourceDependencies) {
    this.#deps = deps;
    this.feed = deps.feed;
    this.writeBack = deps.writeBack;
    this.key = feedKeyOf(deps.feed.url);
    this.origin = feedOrigin(this.key);
    this.#now = deps.now ?? Date.now;
    this.#parser = deps.parser ?? new FeedParser();
    this.#nextFetchAt = new Date(this.#now());
  }

  nextFetchAt(): Date | null {
    return this.#nextFetchAt;
  }

  /** Reads the feed if its turn has come (by its row: another instance may have read it). */
  async pollIfDue(): Promise<ReadSummary | null> {
    await this.#load();
    if (this.#nextFetchAt === null || this.#now() < this.#nextFetchAt.getTime()) return null;
    return this.#serially(() => this.#read(false));
  }

  /** Reads the feed now, whatever its turn (a WebSub notification, a deploy webhook, "Fetch now"). */
  fetchNow(): Promise<ReadSummary> {
    return this.#serially(async () => {
      await this.#load();
      return this.#read(true);
    });
  }

  /**
   * The user accepted a held change of ids: the next read (now) knows every entry, sends nothing.
   * Null when the feed is not held (nothing to accept: its new entries go on being sent).
   */
  async acceptCurrentEntries(): Promise<ReadSummary | null> {
    if (!(await this.#deps.store.rebaseline(this.key))) return null;
    return this.fetchNow();
  }

  async report(): Promise<FeedReport> {
    const row = await this.#deps.store.find(this.key);
    const entriesKnown = row ? await this.#deps.store.countEntries(this.key) : 0;
    return {
      key: this.key,
      origin: this.origin,
      url: row?.url ?? this.key,
      state: stateOf(row),
      nextFetchAt: row ? row.nextFetchAt : this.#nextFetchAt,
      lastFetchAt: row?.lastFetchAt ?? null,
      lastSuccessAt: row?.lastSuccessAt ?? null,
      lastError: row?.stoppedReason ?? row?.lastError ?? null,
      notes: row?.notes ?? [],
      entriesKnown,
      stoppedAt: row?.stoppedAt ?? null,
      writeBack: (await this.writeBack?.report()) ?? null,
    };
  }

  /** Resolves once no read of this feed is under way. */
  async idle(): Promise<void> {
    await this.#queue.catch(() => undefined);
  }

  #serially<T>(read: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(read, read);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #load(): Promise<void> {
    if (this.#loaded) return;
    const row = await this.#deps.store.ensure(this.key);
    this.#nextFetchAt = row.stoppedAt ? null : row.nextFetchAt;
    this.#loaded = true;
  }

  async #read(evenIfNotDue: boolean): Promise<ReadSummary> {
    const now = this.#now();
    const row = await this.#deps.store.takeTurn(this.key, TURN_HOLD_MS, evenIfNotDue);
    if (!row) {
      // Not due after all (another instance read it), or stopped: learn its moment from the row.
      const current = await this.#deps.store.find(this.key);
      this.#nextFetchAt = current && !current.stoppedAt ? current.nextFetchAt : null;
      return { outcome: "skipped", recorded: { new: 0, sent: 0, changed: 0 } };
    }
    this.#nextFetchAt = row.nextFetchAt;
    let outcome: FetchOutcome;
    let summary: ReadSummary;
    try {
      const result = await fetchFeed(
        {
          url: row.url,
          etag: row.etag,
          lastModified: row.lastModified,
          failures: row.failures,
          pollSeconds: this.feed.pollSeconds,
        },
        {
          policy: this.#deps.policy,
          now: this.#now,
          ...(this.#deps.signal ? { signal: this.#deps.signal } : {}),
        },
      );
      ({ outcome, summary } = await this.#settle(row, result));
    } catch (error) {
      // Our own failure (the database): the feed is tried again after its interval.
      if (this.#deps.signal?.aborted) throw error;
      this.#deps.logger.error(`Could not read the feed ${this.key}`, { error: describe(error) });
      outcome = {
        url: row.url,
        etag: row.etag,
        lastModified: row.lastModified,
        nextFetchAt: this.#now() + this.feed.pollSeconds * 1000,
        failures: row.failures,
        fetchedAt: now,
        succeeded: false,
        error: { kind: "fetch", message: `The feed could not be read: ${describe(error)}` },
      };
      summary = { outcome: "skipped", recorded: { new: 0, sent: 0, changed: 0 } };
    }
    // The database's moment (or the test's): this process's own clock may be a little apart.
    this.#nextFetchAt = await this.#deps.store.finishFetch(this.key, outcome, this.#now());
    return summary;
  }

  /** What the fetcher's verdict leaves in the feed's row, and what the entries became. */
  async #settle(
    row: FeedRow,
    result: FeedFetchResult,
  ): Promise<{ outcome: FetchOutcome; summary: ReadSummary }> {
    const base = {
      url: result.movedTo ?? row.url,
      etag: row.etag,
      lastModified: row.lastModified,
      nextFetchAt: result.nextFetchAt,
      failures: result.failures,
      fetchedAt: this.#now(),
    };
    const nothing = { new: 0, sent: 0, changed: 0 };
    if (result.movedTo)
      this.#deps.logger.info(
        `The feed ${this.key} moved for good; it is read at ${result.movedTo} from now on`,
      );
    switch (result.kind) {
      case "not-modified":
        return {
          // A 304 answers for the body read last: an error that body caused still holds.
          outcome: {
            ...base,
            ...result.validators,
            succeeded: true,
            error: row.errorKind === "fetch" || row.errorKind === null ? null : errorOf(row),
          },
          summary: { outcome: "not-modified", recorded: nothing },
        };
      case "gone":
        this.#deps.logger.warn(`The feed ${this.key} is gone (410): it is no longer read`, {
          feed: this.key,
        });
        await this.#deps.subscriber?.unsubscribe(this.key).catch(() => undefined);
        return {
          outcome: {
            ...base,
            succeeded: false,
            error: { kind: "fetch", message: result.message },
            stopped: `${result.message}. The feed is no longer read; remove it from the feeds option, or fix the site and restart.`,
          },
          summary: { outcome: "gone", recorded: nothing },
        };
      case "backoff":
      case "refused":
        return {
          outcome: { ...base, succeeded: false, error: { kind: "fetch", message: result.message } },
          summary: { outcome: result.kind, recorded: nothing },
        };
      case "fetched":
        return this.#readBody(row, result, base);
    }
  }

  async #readBody(
    row: FeedRow,
    result: FeedFetched,
    base: Omit<FetchOutcome, "succeeded" | "error">,
  ): Promise<{ outcome: FetchOutcome; summary: ReadSummary }> {
    const fetched = { ...base, ...result.validators, succeeded: true };
    let read: NewestEntries;
    this.parses += 1;
    try {
      read = await this.#parser.parse(
        { body: result.body, contentType: result.contentType ?? undefined, url: result.url },
        this.feed.maxEntries,
      );
    } catch (error) {
      // A parse ended by the shutdown is no fault of the feed's.
      if (!(error instanceof FeedParseError) || this.#deps.signal?.aborted) throw error;
      // Read again from scratch next time: the same bad body must not hide behind a 304. But a
      // body too slow or too big to read stays so: its validators are kept, the same body is
      // answered by a 304 (the error stays), and only a changed one is read again.
      const again = error.code !== "too-slow" && error.code !== "too-large";
      if (!again) this.#deps.logger.warn(error.message, { feed: this.key });
      return {
        outcome: {
          ...fetched,
          ...(again ? { etag: null, lastModified: null } : {}),
          error: { kind: "parse", message: error.message },
        },
        summary: { outcome: "parse-error", recorded: { new: 0, sent: 0, changed: 0 } },
      };
    }
    const parsed = read.feed;
    const notes = parsed.problems.map((problem) => problem.message);
    if (read.omitted > 0) {
      const left = `The feed lists ${read.total} entries: only the newest ${this.feed.maxEntries} were read, the ${read.omitted} older ones left out (the feed's maxEntries option).`;
      notes.unshift(left);
      this.#deps.logger.info(left, { feed: this.key });
    }
    await this.#subscribe(result, notes);
    const { store } = this.#deps;
    const entries = parsed.entries;
    const known = await store.matching(
      this.key,
      entries.flatMap((entry) => (entry.id !== undefined ? [entry.id] : [])),
      entries.flatMap((entry) => (entry.url !== undefined ? [entry.url] : [])),
    );
    const baseline = row.baselinedAt === null;
    const newestKnown = await store.newestPublished(this.key);
    const plan = planRead({
      entries,
      known,
      routing: {
        targets: this.feed.targets,
        categories: this.feed.categories,
        // Only a feed read for the very first time backfills: one read again after the user
        // accepted new ids knows its entries already.
        backfill: newestKnown === null ? this.feed.backfill : 0,
        platforms: this.#deps.platforms,
      },
      baseline,
      newestKnown,
      now: this.#now(),
    });
    notes.push(...plan.notes);
    if (plan.held) {
      this.#deps.logger.warn(plan.held, { feed: this.key });
      return {
        // Read again in full next time: the site may have put its ids back.
        outcome: {
          ...fetched,
          etag: null,
          lastModified: null,
          error: { kind: "held", message: plan.held },
          notes,
        },
        summary: { outcome: "held", recorded: { new: 0, sent: 0, changed: 0 } },
      };
    }
    const recorded = { new: 0, sent: 0, changed: 0 };
    const firstSeen = this.#now();
    for (const planned of plan.entries) {
      // No turn of the event loop of its own between entries: each entry's statements are followed
      // by one on the embedded database (decision 0078), and PostgreSQL's answers come over a
      // socket; a request that needs several queries is answered between two entries either way.
      const { entry } = planned;
      const keep = (postId: string, published: Date): KnownEntry => ({
        postId,
        entryId: entry.id ?? null,
        url: entry.url,
        contentHash: entry.contentHash,
        published,
      });
      try {
        if (planned.kind === "rekeyed") {
          await store.keepEntry(this.key, keep(planned.known.postId, planned.known.published), firstSeen);
          continue;
        }
        const published = planned.kind === "new" ? planned.published : planned.known.published;
        const targets = planned.kind === "new" ? planned.targets : [];
        const texts = Object.keys(planned.texts).length > 0 ? { [SITE_TEXT_PROPERTY]: [planned.texts] } : {};
        const answer = await this.#deps.known.record({
          origin: this.origin,
          url: entry.url,
          published,
          properties: {
            ...entry.properties,
            ...(targets.length > 0 ? { "mp-syndicate-to": targets } : {}),
            ...texts,
          },
          ...(planned.kind === "changed" ? { id: planned.known.postId } : {}),
        });
        await store.keepEntry(this.key, keep(answer.post.id, published), firstSeen);
        if (answer.outcome === "new") {
          recorded.new += 1;
          if (targets.length > 0) recorded.sent += 1;
        }
        if (answer.outcome === "changed") recorded.changed += 1;
      } catch (error) {
        if (!(error instanceof KnownPostConflictError)) throw error;
        notes.push(`${entry.url} was not recorded: ${error.message}`);
      }
    }
    if (recorded.new + recorded.changed > 0)
      this.#deps.logger.info(`Read the feed ${this.key}`, { feed: this.key, ...recorded });
    return {
      outcome: { ...fetched, error: null, notes, baselined: true },
      summary: { outcome: "fetched", recorded },
    };
  }

  /** Asks the feed's hub to push it, when it names one; a hub that fails is a note, never an error. */
  async #subscribe(result: FeedFetched, notes: string[]): Promise<void> {
    const subscriber = this.#deps.subscriber;
    if (!subscriber) return;
    const { hubs, self } = discoverWebSub(result);
    const hub = hubs[0];
    if (!hub) return;
    try {
      const outcome = await subscriber.subscribe(this.key, hub, self);
      if (!outcome.accepted)
        notes.push(`The feed's WebSub hub ${hub} did not take the subscription: ${outcome.detail}`);
    } catch (error) {
      notes.push(`The feed's WebSub hub ${hub} could not be asked: ${describe(error)}`);
    }
  }
}

function errorOf(row: FeedRow): FetchOutcome["error"] {
  return row.errorKind && row.lastError ? { kind: row.errorKind, message: row.lastError } : null;
}

function stateOf(row: FeedRow | null): FeedReport["state"] {
  if (!row || (!row.lastFetchAt && !row.stoppedAt)) return "new";
  if (row.stoppedAt) return "stopped";
  if (row.errorKind === "held") return "held";
  return row.lastError ? "failing" : "ok";
}
