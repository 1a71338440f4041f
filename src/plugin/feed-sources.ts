// The endpoint's `feeds` (docs/sources.md) made into a running post source: its tables, its reads on
// the scheduler's turns, WebSub callbacks at `{mountPath}/websub/:id`, and at start one line per
// target a feed names that no installed syndicator has. A feed whose site has a Micropub endpoint
// (its `micropub` option) gets the copies' links written back there. The feeds added on the Feeds
// page (page-feed-store.ts) run beside them, so with a database the feeds always run: with no feed
// at all they only end the WebSub subscriptions of feeds removed, and wait for one to be added.
import { ConfigError } from "../contract/config-error.ts";
import type { Server } from "../contract/plugin.ts";
import { type FeedOptions, unknownFeedTargets } from "../sources/feeds/feed-options.ts";
import type { FeedReport } from "../sources/feeds/feed-source.ts";
import { FeedSources } from "../sources/feeds/feed-sources.ts";
import { SqlWebSubSubscriptionStore } from "../sources/feeds/http/index.ts";
import { feedSourceMigrations } from "../sources/feeds/migrations.ts";
import { PageFeedStore } from "../sources/feeds/page-feed-store.ts";
import { platformTags } from "../sources/feeds/site-text.ts";
import type { LinkWriteBack, LinkWriteBackReport } from "../sources/micropub/link-write-back.ts";
import { addMicropubSourceTables } from "./post-sources.ts";

interface FeedSourcesStart {
  mountPath: string;
  env: NodeJS.ProcessEnv;
  now?: (() => number) | undefined;
  /** Has the scheduler ask the feeds when they want their next turn (see FeedSourcesDependencies.wake). */
  wake?: () => void;
  /** How long one parse may take on the parse thread (tests shorten it). */
  parseTimeLimitMs?: number | undefined;
}

/** The running feeds (the configuration file's and the page's); null without a database. */
export function startFeedSources(
  server: Server,
  feeds: readonly FeedOptions[],
  start: FeedSourcesStart,
): FeedSources | null {
  const { database, knownPosts } = server;
  if (!database || !knownPosts) return null;
  // Subscription secrets stored in clear (before sealing) are sealed before anything reads them; a
  // key rotation's `possekit rekey` seals them again. Also with no feed left: their rows stay.
  const secrets = new SqlWebSubSubscriptionStore(database, () => server.secretSealer ?? null);
  server.onStart(async () => {
    const sealed = await secrets.sealAtRest();
    if (sealed > 0)
      server.logger.info("Sealed the WebSub subscription secrets stored in clear", { count: sealed });
  });
  server.onRekey?.(() => secrets.sealAtRest());
  server.addMigrations(feedSourceMigrations);
  // A feed's write-back keeps its turns in the Micropub source's tables: a feed of the file, or one
  // the Feeds page may add at any time.
  addMicropubSourceTables(server);
  // Before the first read: a feed naming a target nobody installed would record posts that wait forever.
  server.onStart(() => {
    const problems = unknownFeedTargets(
      feeds,
      server.syndicators.map((syndicator) => syndicator.info.uid),
    );
    if (problems.length > 0) throw new ConfigError(problems);
  });
  const sources = runFeedSources(server, feeds, start);
  // The page's feeds, once the migrations made their table: read before the first request.
  server.onStart(async () => {
    await sources.refresh();
  });
  return sources;
}

function runFeedSources(
  server: Server,
  feeds: readonly FeedOptions[],
  { mountPath, env, now, wake, parseTimeLimitMs }: FeedSourcesStart,
): FeedSources {
  const { database, knownPosts } = server;
  if (!database || !knownPosts) throw new Error("The feeds need the host's database and posts");
  const stopping = new AbortController();
  const pageFeeds = new PageFeedStore(database, () => server.secretSealer ?? null);
  // A key rotation's `possekit rekey` seals the page feeds' Micropub tokens again.
  server.onRekey?.(() => pageFeeds.rekey());
  // Each feed origin with a write-back is told of the copies' links once, whichever of its feed's
  // write-backs runs now (a page feed is made anew when its options or token change).
  const told = new Set<string>();
  const tellOfLinks = (writeBack: LinkWriteBack) => {
    if (told.has(writeBack.origin)) return;
    told.add(writeBack.origin);
    const { origin } = writeBack;
    knownPosts.addOrigin({
      origin,
      writeBack: async (post, update) =>
        sources.feeds.find((feed) => feed.writeBack?.origin === origin)?.writeBack?.writeBack(post, update),
    });
  };
  const sources: FeedSources = new FeedSources({
    feeds,
    pageFeeds: () =>
      pageFeeds.running((key, problem) =>
        server.logger.warn("A feed added on the Feeds page is left out", { feed: key, problem }),
      ),
    onWriteBack: tellOfLinks,
    database,
    known: knownPosts,
    logger: server.logger,
    policy: { ownSite: server.publication.me, allowPrivate: server.config.fetch.allowPrivate },
    // A `<posse:post>` platform override ("mastodon", "bsky") names the targets of that service.
    platforms: (uid) =>
      platformTags(server.syndicators.find((syndicator) => syndicator.info.uid === uid)?.info.service?.name),
    sealer: () => server.secretSealer ?? null,
    callbackUrl: (id) =>
      `${server.config.application.url.replace(/\/+$/, "")}${mountPath}/websub/${encodeURIComponent(id)}`,
    env,
    signal: stopping.signal,
    ...(now ? { now } : {}),
    ...(wake ? { wake } : {}),
    ...(parseTimeLimitMs !== undefined ? { parseTimeLimitMs } : {}),
  });
  server.onShutdown(async () => {
    stopping.abort(new Error("The server is shutting down"));
    await sources.idle();
  });
  return sources;
}

/** A feed as /health shows it (snake_case, ISO dates, the error that needs the user). */
export function feedHealth(report: FeedReport): Record<string, unknown> {
  const iso = (date: Date | null) => date?.toISOString() ?? null;
  return {
    origin: report.origin,
    url: report.url,
    state: report.state,
    next_fetch_at: iso(report.nextFetchAt),
    last_fetch_at: iso(report.lastFetchAt),
    last_success_at: iso(report.lastSuccessAt),
    entries_known: report.entriesKnown,
    ...(report.lastError ? { error: report.lastError } : {}),
    ...(report.writeBack ? { write_back: writeBackHealth(report.writeBack) } : {}),
  };
}

/** The write-back to a feed's site as /health shows it: where, its state, the error that needs the user. */
function writeBackHealth(report: LinkWriteBackReport): Record<string, unknown> {
  const iso = (date: Date | null) => date?.toISOString() ?? null;
  return {
    endpoint: report.endpoint,
    state: report.state,
    next_attempt_at: iso(report.nextPollAt),
    last_success_at: iso(report.lastSuccessAt),
    ...(report.error ? { error: report.error } : {}),
  };
}
