// The world of the feed source's tests, all over real HTTP: a site that publishes only a feed (no
// Micropub: possekit never hears from it), a sandbox Mastodon, and possekit with the endpoint's
// `feeds` option and its scheduler running, reading the feed on the scheduler's turns by a test
// clock. Nobody makes a request to possekit: what reaches Mastodon came through the feed.
import type { Post } from "../../../src/contract/posts.ts";
import { EndpointSyndicate } from "../../../src/plugin/endpoint-syndicate.ts";
import type { FeedReport, FeedSource } from "../../../src/sources/feeds/feed-source.ts";
import type { FeedSources } from "../../../src/sources/feeds/feed-sources.ts";
import type { Scheduler } from "../../../src/syndication/due/scheduler.ts";
import { closeAll, startTarget, type Target } from "../../endpoint/endpoint-server.ts";
import { TestClock } from "../../helpers/clock.ts";
import type { Engine } from "../../helpers/databases.ts";
import { eventually } from "../../helpers/eventually.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { FeedSite, type SiteFormat } from "./feed-site.ts";

export const POLL_SECONDS = 300;

export interface FeedWorld {
  site: FeedSite;
  target: Target;
  clock: TestClock;
  server: TestServer;
  plugin: EndpointSyndicate;
  feeds: FeedSources;
  feed: FeedSource;
  scheduler: Scheduler;
  /** Moves the clock on by the feed's interval, wakes the scheduler and waits for the read to end. */
  nextRead(): Promise<FeedReport>;
  /** Waits until the feed has been read at or after the clock's present moment. */
  readAt(moment: number): Promise<FeedReport>;
  /** The feed's posts, as the core sees them. */
  posts(): Promise<Post[]>;
  /** Posts waiting to be sent (none: nothing more will go out). */
  awaiting(): Promise<number>;
  /** The sandbox's requests with this method and path pattern. */
  requests(method: string, path: RegExp): number;
  close(): Promise<void>;
}

export interface FeedWorldOptions {
  format?: SiteFormat;
  /** More of the feed's options (url and targets are the world's). */
  feed?: Record<string, unknown>;
  /** More of the endpoint's options. */
  endpoint?: Record<string, unknown>;
  /** The server's `fetch.allowPrivate` (true unless given: the site is on 127.0.0.1). */
  allowPrivate?: boolean;
  /** The server's environment (WEBHOOK_SECRET). */
  env?: Record<string, string>;
  /** How long one parse may take before the parse thread is ended (the server's default otherwise). */
  parseTimeLimitMs?: number;
  /** Prepares the site before possekit starts (its first read happens at start). */
  prepare?: (site: FeedSite) => void;
}

export async function startFeedWorld(engine: Engine, options: FeedWorldOptions = {}): Promise<FeedWorld> {
  const site = await new FeedSite(options.format ?? "atom").start();
  options.prepare?.(site);
  const target = await startTarget();
  // The scheduler sleeps by the wall clock: the test clock starts at the real time, so a read due
  // "in five minutes" is five real minutes away and the scheduler waits for a nudge.
  const clock = new TestClock(Date.now());
  const pollSeconds = typeof options.feed?.pollSeconds === "number" ? options.feed.pollSeconds : POLL_SECONDS;
  const plugin = new EndpointSyndicate(
    {
      schedule: { enabled: true, whenLive: false },
      targets: { checkAtStart: false },
      retry: { baseMs: 100, maxMs: 400 },
      feeds: [{ url: `${site.url}/feed`, targets: [target.uid], pollSeconds, ...options.feed }],
      ...options.endpoint,
    },
    {
      env: {},
      now: clock.now,
      ...(options.parseTimeLimitMs ? { feedParseTimeLimitMs: options.parseTimeLimitMs } : {}),
    },
  );
  let server: TestServer;
  try {
    server = await startTestServer({
      engine,
      config: { plugins: [], fetch: { allowPrivate: options.allowPrivate ?? true } },
      plugins: [target.syndicator(), plugin],
      ...(options.env ? { env: options.env } : {}),
    });
  } catch (error) {
    await closeAll(site, target);
    throw error;
  }
  const feeds = plugin.feeds;
  const feed = feeds?.feeds[0];
  const scheduler = plugin.scheduler;
  if (!feeds || !feed || !scheduler) throw new Error("The endpoint started without its feed or scheduler");
  const postSource = server.host.postSource;
  if (!postSource) throw new Error("The server has no post source");
  const world: FeedWorld = {
    site,
    target,
    clock,
    server,
    plugin,
    feeds,
    feed,
    scheduler,
    async nextRead() {
      clock.advance(pollSeconds * 1000);
      const moment = clock.now();
      scheduler.nudge();
      return world.readAt(moment);
    },
    readAt(moment) {
      return eventually("the feed is read", async () => {
        const report = await feed.report();
        return report.lastFetchAt && report.lastFetchAt.getTime() >= moment ? report : undefined;
      });
    },
    async posts() {
      const { posts } = await postSource.list({ limit: 100 });
      return posts.filter((post) => post.origin === feed.origin);
    },
    awaiting: () => postSource.countAwaitingSyndication(),
    requests: (method, path) =>
      target.sandbox.requests.filter((request) => request.method === method && path.test(request.path))
        .length,
    async close() {
      await server.close();
      await closeAll(site, target);
    },
  };
  return world;
}

export { eventually };
