// The plug-in contract (spec §2.4, §4.3) as types: what every plug-in is, what an endpoint adds, and
// the server as a plug-in sees it in init(). Plug-ins import only from src/contract, never from the
// host's internals.
import type { Router } from "express";
import type { Accounts } from "./accounts.ts";
import type { Database, Migration } from "./database.ts";
import type { KnownPosts } from "./known-posts.ts";
import type { Logger } from "./logger.ts";
import type { MediaLibrary } from "./media.ts";
import type { MicropubPort } from "./micropub.ts";
import type { PostSource } from "./post-source.ts";
import type { SecretSealer } from "./secret-sealer.ts";
import type {
  CopyChangeOptions,
  CopyPreview,
  PostProperties,
  PreviewOptions,
  Publication,
  SyndicateOptions,
  SyndicatorInfo,
  ThreadOptions,
} from "./syndicator.ts";

export interface NavigationItem {
  /** Value of the link's href attribute. */
  href: string;
  /** A locale key path, translated by the host (spec §2.4). */
  text: string;
  /** Hidden when the server runs without a database. */
  requiresDatabase?: boolean;
  /**
   * A count shown beside the item on signed-in pages (0 hides it), e.g. posts that need the user.
   * `text` is a locale key with plural forms and `{count}`: what a screen reader says.
   */
  badge?: { count(): Promise<number>; text: string };
}

export interface PluginMeta {
  /** Absolute path of the plug-in's module (import.meta.url), used to find its views and locales. */
  url?: string;
  description?: string;
}

export interface Plugin {
  /** Kebab-cased identifier. */
  id: string;
  name: string;
  meta: PluginMeta | (() => PluginMeta);
  options?: Record<string, unknown>;
  init(server: Server): void | Promise<void>;
  /** What /health reports of the plug-in under its id, to the owner and token holders only (keep it quick: /health is polled). */
  health?(): Promise<Record<string, unknown>> | Record<string, unknown>;
}

export interface EndpointPlugin extends Plugin {
  mountPath: string;
  navigationItems?: NavigationItem | NavigationItem[];
  /** Behind authentication, then rate-limited per credential. Paths are relative to mountPath. */
  routes?: Router;
  /**
   * No authentication: the routes check who sent a request themselves (a webhook's signature) and
   * fail with an HttpError through next() when it does not verify. Only such failures (4xx) count,
   * per address, against application.rateLimit.public. Paths are relative to mountPath.
   */
  routesPublic?: Router;
  /** Served beneath /.well-known/, whatever the mountPath. */
  routesWellKnown?: Router;
}

/** A syndication target (spec §4.3); beside Plugin and Server, which it refers to and they to it. */
export interface SyndicatorPlugin extends Plugin {
  info: SyndicatorInfo;
  /** Whether a repeated call with the same idempotencyKey is known not to create a second copy. */
  honoursIdempotencyKey?: boolean;
  /** How long one send may take; the endpoint's `targetTimeoutMs` when absent. */
  timeoutMs?: number;
  /** Returns the URL of the copy; throws an Error whose message says what went wrong. */
  syndicate(properties: PostProperties, publication: Publication, options: SyndicateOptions): Promise<string>;
  /**
   * Checks that the target would take a post (its credentials are accepted), without sending one;
   * throws an Error saying what is wrong, with `status` when the service answered (401, 429…).
   */
  verify?(options: { signal: AbortSignal }): Promise<void>;
  /**
   * Where the user sets this target's credentials, as they would write it: the environment
   * variable, or the option's path in the config file. The page names it when they are refused.
   */
  credentialSetting?: string;
  /**
   * The option that names the service's address, as the user would write it (e.g.
   * `"@possekit/syndicator-bluesky".serviceUrl`): the page names it when nothing answers there.
   */
  addressSetting?: string;
  /**
   * true: a send refused for the credentials (401, 403) waits, pending, until the target takes
   * posts again, and then goes out by itself (a connected account, reconnected on the Accounts
   * page); absent: it fails and waits for the user's retry.
   */
  holdWhileRefused?: boolean;
  /**
   * The target's thread options (decision 0055), present when it can make a long post a thread:
   * the Accounts page shows them, and the preview offers a choice per post (decision 0058).
   */
  threads?: ThreadOptions;
  /**
   * Keeps an expiring credential alive with nobody watching (Threads refreshes its 60-day token
   * once it is a day old): the scheduler calls it at each wake-up. Resolves to when the credential
   * ends and why it could not be renewed, once the owner should be told (Threads: a week before);
   * else undefined. The implementation decides when to reach the service (not at every call).
   */
  maintainCredentials?(options: {
    signal: AbortSignal;
  }): Promise<{ expiresAt: Date; error: string } | undefined>;
  /**
   * The service's publishing quota as it reports it now (Threads: posts published in the last 24
   * hours, of 250), for the Accounts page. Absent: the service reports none.
   */
  publishingQuota?(options: {
    signal: AbortSignal;
  }): Promise<{ used: number; total: number; duration: number }>;
  /** What `syndicate` would send now, without any network call. */
  preview?(properties: PostProperties, publication: Publication, options?: PreviewOptions): CopyPreview;
  /**
   * Changes the copy at `options.url` (what `syndicate` returned) to what `syndicate` would send
   * now, keeping its photos. Absent: the service keeps copies as they were sent (Bluesky has no
   * edits; a new capture is a new copy), and the page says so. Throws like `syndicate`.
   */
  update?(properties: PostProperties, publication: Publication, options: CopyChangeOptions): Promise<void>;
  /**
   * `update` also gives the copy the post's photos now (added, replaced, removed, each with its alt
   * text), not only their alt text (decision 0060: Mastodon). Absent: an edit keeps the copy's photos
   * as they were sent, and the post's page says so.
   */
  readonly updatesPhotos?: boolean;
  /**
   * Deletes the copy at `options.url` (a status, a record, a like or a boost is undone). A copy
   * that is already gone counts as deleted. Absent: copies are kept (an archive's capture).
   * `properties` are the deleted post's: a like's or a repost's copy URL is the post it is about,
   * so they say which of our records there (our post, our like, our repost) is this copy.
   */
  delete?(properties: PostProperties, publication: Publication, options: CopyChangeOptions): Promise<void>;
  /**
   * Replaces the copy at `options.url` (every post of `options.threadPosts`) with the post as it is now,
   * as one change where the service allows it, and returns the new copy's URL (decision 0062: a
   * thread on a service without edits, when the user asks). Replies to the old copy are lost. A
   * repeat with the same `idempotencyKey` finds the new copy made and makes no other.
   */
  replace?(properties: PostProperties, publication: Publication, options: CopyChangeOptions): Promise<string>;
}

export interface ViewLocation {
  /** A folder of nunjucks templates. */
  path: string;
}

/**
 * The least a host offers an endpoint plug-in: Indiekit's (spec §2.4), whose `init(server)` may
 * rely on `addEndpoint` alone. Indiekit also passes its endpoints so far (a Set, in the order its
 * plug-ins were loaded) and its publication; a plug-in reads them only to check what it needs.
 */
export interface IndiekitServer {
  addEndpoint(plugin: EndpointPlugin): void;
  /** The endpoints added before this plug-in's init: Indiekit's defaults come first. */
  readonly endpoints?: Iterable<Pick<EndpointPlugin, "mountPath"> & { id?: string; name?: string }>;
  readonly publication?: { me?: string };
}

/**
 * Whether the host is possekit's, which offers views, locales, a database and the host's posts
 * (PossekitServer) beyond what Indiekit offers.
 *
 * @example if (isPossekitServer(server)) server.addViews(folder);
 */
export function isPossekitServer(server: IndiekitServer): server is PossekitServer {
  const extras = server as Partial<Record<keyof PossekitServer, unknown>>;
  return (
    typeof extras.addViews === "function" &&
    typeof extras.addLocales === "function" &&
    typeof extras.addMigrations === "function" &&
    typeof extras.onStart === "function" &&
    typeof extras.onShutdown === "function" &&
    typeof extras.pluginOptions === "function"
  );
}

/** The server as a plug-in sees it in init() under possekit's host: Indiekit's, and more. */
export type Server = PossekitServer;

/**
 * Saves the thread choices a Micropub client gave for the post at `postUrl`, by target uid: true a
 * thread, false one cut post, null back to the target's own option (decision 0064).
 */
export type ThreadChoicesHandler = (
  postUrl: string,
  choices: Readonly<Record<string, boolean | null>>,
) => Promise<void>;

/** possekit's host: everything Indiekit offers a plug-in, plus views, locales, a database, posts. */
export interface PossekitServer extends IndiekitServer {
  readonly config: HostConfigView;
  readonly publication: Publication;
  /** null when the server runs without a database (application.database: false). */
  readonly database: Database | null;
  /**
   * Every post the syndication core may send, the site's own and those kept from elsewhere
   * (`knownPosts`), as it reads them and writes their links back (the post-source port); null
   * without a database. The host's own post service stays the host's.
   */
  readonly postSource: PostSource | null;
  /**
   * Where a source of posts from elsewhere (a feed, a remote Micropub server) keeps them, so that
   * the core reads them through `postSource` like the site's own; null without a database. Such
   * posts never appear on the site's own faces (Micropub, its pages and feeds, its content store).
   */
  readonly knownPosts: KnownPosts | null;
  /**
   * Uploaded files (media.folder), served at <application.url>/media/. A syndicator reads a photo
   * of the server's own through `read` instead of fetching it over HTTP.
   */
  readonly media: MediaLibrary;
  readonly logger: Logger;
  readonly endpoints: readonly EndpointPlugin[];
  readonly syndicators: readonly SyndicatorPlugin[];
  /**
   * The accounts connected from the Accounts page, each a syndicator in `syndicators` while it is
   * connected (src/contract/accounts.ts); null without a database.
   */
  readonly accounts?: Accounts | null;
  /**
   * The box the accounts' secrets are sealed with, for a plug-in's own secrets (an OAuth client's
   * secret); null without a database.
   */
  readonly secretSealer?: SecretSealer | null;
  /**
   * The host's own Micropub endpoint, for a page that writes posts through it (the compose page);
   * null without a database or without the endpoint. Absent under a host that offers none.
   */
  readonly micropub?: MicropubPort | null;
  /**
   * Has `possekit rekey` seal a plug-in's own secrets again under the current key (after a key
   * rotation); the handler returns how many it sealed. Absent under a host without a secret box.
   */
  onRekey?(handler: () => Promise<number>): void;
  /**
   * Has the host's Micropub endpoint save a post's thread choices (mp-syndicate-thread, decision 0064)
   * where the syndication core keeps them, never in the post. Absent under a host without Micropub.
   */
  onThreadChoices?(handler: ThreadChoicesHandler): void;
  /** Options given to a plug-in in the config file under its package name, or {}. */
  pluginOptions(packageName: string): Record<string, unknown>;
  addEndpoint(plugin: EndpointPlugin): void;
  addSyndicator(plugin: SyndicatorPlugin): void;
  /** Unregisters the target with this uid at once; false when there is none. */
  removeSyndicator?(uid: string): boolean;
  addViews(folder: string): void;
  /** A folder holding <lang>.json files, deep-merged into the host's. */
  addLocales(folder: string): void;
  addMigrations(migrations: Migration[]): void;
  /**
   * Called once when the server is about to listen (after migrations, before the first request),
   * never by commands that only open the database: a plug-in resolves what a crash left and starts
   * its background work (the syndication scheduler) here.
   */
  onStart(handler: () => Promise<void> | void): void;
  /** Called before the database closes on shutdown; lets a plug-in finish or hand back what it holds. */
  onShutdown(handler: () => Promise<void> | void): void;
}

/** The parts of the host configuration plug-ins may read. */
export interface HostConfigView {
  application: {
    name: string;
    url: string;
    locale: string | undefined;
    production: boolean;
  };
  secrets: {
    /** The WEBHOOK_SECRET, or undefined when not set. Never log it. */
    webhookSecret: string | undefined;
  };
  /** The `fetch` section: rules for fetching URLs that come from posts (src/net/safe-fetch.ts). */
  fetch: { allowPrivate: boolean };
}
