// The syndication endpoint plug-in (spec §1, §2.4): what a server installs as
// "@possekit/endpoint-syndicate". The core (src/syndication) does the work; this class wires it to
// the host: routes, public webhook routes, navigation, views, locales and migrations.
import { join } from "node:path";
import type { AccountFlow } from "../contract/account-flow.ts";
import { ConfigError } from "../contract/config-error.ts";
import {
  type EndpointPlugin,
  type IndiekitServer,
  isPossekitServer,
  type NavigationItem,
  type PluginMeta,
  type PossekitServer,
  type Server,
} from "../contract/plugin.ts";
import type { PostChange } from "../contract/posts.ts";
import { notificationMigrations } from "../notifications/migrations.ts";
import {
  effectiveSettings,
  type NotificationSettings,
  NotificationSettingsError,
  notificationSettings,
} from "../notifications/notification-settings.ts";
import type { Notifications } from "../notifications/notifications.ts";
import { Notifier } from "../notifications/notifier.ts";
import { NotificationSettingsStore } from "../notifications/settings-store.ts";
import type { FeedSources } from "../sources/feeds/feed-sources.ts";
import type { MicropubSource } from "../sources/micropub/micropub-source.ts";
import { type After, Scheduler } from "../syndication/due/scheduler.ts";
import { syndicationMigrations } from "../syndication/migrations.ts";
import type { Every } from "../syndication/runs/lease.ts";
import { Syndication } from "../syndication/syndication.ts";
import { feedHealth, startFeedSources } from "./feed-sources.ts";
import { mountPathClash } from "./indiekit/mount-path-clash.ts";
import type { OwnHost, OwnHostOpener } from "./indiekit/own-host.ts";
import { refuseToStart } from "./indiekit/refuse-start.ts";
import { type EndpointOptions, parseEndpointOptions } from "./options.ts";
import { PACKAGE_ROOT } from "./package-root.ts";
import { trackBatchProgress } from "./page/batch-progress.ts";
import { sourceHealth, startPostSources } from "./post-sources.ts";
import { authenticatedRoutes, publicRoutes } from "./routes/index.ts";

export const PACKAGE_NAME = "@possekit/endpoint-syndicate";

export class EndpointSyndicate implements EndpointPlugin {
  readonly id = "endpoint-syndicate";
  /** Beside Indiekit's own "Syndication endpoint" in its plug-in list, this one says whose it is. */
  readonly name = "possekit syndication endpoint";
  readonly options: EndpointOptions;
  readonly mountPath: string;
  readonly navigationItems: NavigationItem;
  readonly routes;
  readonly routesPublic;
  /** The core; null until init, and when the server runs without a database. */
  syndication: Syndication | null = null;
  /** Sends what is due without being asked; null when schedule.enabled is false or no database. */
  scheduler: Scheduler | null = null;
  /** Posts that live elsewhere (the `sources` option), polled by the scheduler; none until init. */
  sources: MicropubSource[] = [];
  /**
   * Posts from any site's feed (the `feeds` option and the Feeds page), read on the scheduler's
   * turns; null without a database.
   */
  feeds: FeedSources | null = null;
  /** Where failures are told, and the Notifications page's settings; null without a database. */
  notifications: Notifications | null = null;
  private server: Server | null = null;
  private readonly environment: EndpointEnvironment;
  /** Set when init() finds Indiekit's host (no possekit extras): what the routes need of it. */
  private indiekit: { me: string; webhookSecret: string | undefined } | null = null;

  /** The options as written: a default is not a choice the user made. */
  private readonly givenOptions: Record<string, unknown>;
  /** Under Indiekit with the `database` option: the plug-in's own database and posts. */
  private ownHost: OwnHost | null = null;
  /**
   * The ways to connect an account that need routes of their own (Mastodon's OAuth), mounted at
   * {mountPath}/accounts/{type}/; the package's entry (src/index.ts) gives the built-in ones.
   */
  protected accountFlows: readonly AccountFlow[] = [];

  /**
   * @param environment where the sources' tokens are read (`process.env`), and for tests the clock
   * the sources poll by.
   */
  constructor(options: Record<string, unknown> = {}, environment: Partial<EndpointEnvironment> = {}) {
    this.environment = { env: process.env, ...environment };
    this.givenOptions = options;
    this.options = parseEndpointOptions(options, this.environment.env);
    this.mountPath = this.options.mountPath;
    this.navigationItems = {
      href: this.mountPath,
      text: "syndicate.title",
      // With a database of its own (Indiekit), the page works whatever the host has.
      requiresDatabase: this.options.database === undefined,
      badge: {
        count: async () => (await this.syndication?.reads.postsNeedingAttention())?.needingUser ?? 0,
        text: "syndicate.needingUser",
      },
    };
    const context = {
      mountPath: this.mountPath,
      accountFlows: () => this.accountFlows,
      now: () => (this.environment.now ?? Date.now)(),
      options: this.options,
      syndication: () => this.syndication,
      server: () => this.server,
      sources: () => this.sources,
      feeds: () => this.feeds,
      notifications: () => this.notifications,
      indiekit: () => this.indiekit,
      ownPage: () => this.ownHost?.page ?? null,
      webhookSecret: () =>
        this.server ? this.server.config.secrets.webhookSecret : this.indiekit?.webhookSecret,
    };
    this.routes = authenticatedRoutes(context);
    this.routesPublic = publicRoutes(context);
  }

  meta(): PluginMeta {
    return {
      url: import.meta.url,
      description: "Posts published posts to their syndication targets and writes the links back (POSSE)",
    };
  }

  /** For /health: the scheduler's state, how many posts wait for the user, and the sources. */
  async health(): Promise<Record<string, unknown>> {
    if (!this.syndication) return { scheduler: "none" };
    const sources = await Promise.all(
      this.sources.map(async (source) => sourceHealth(await source.report())),
    );
    const feeds = ((await this.feeds?.reports()) ?? []).map(feedHealth);
    const state = this.scheduler?.state();
    const lastRun = state?.lastRun;
    return {
      scheduler: state
        ? {
            state: state.running ? "running" : "stopped",
            next_due_at: state.nextDueAt?.toISOString() ?? null,
            last_run: lastRun
              ? {
                  id: lastRun.runId,
                  started_at: lastRun.startedAt.toISOString(),
                  finished_at: lastRun.finishedAt?.toISOString() ?? null,
                  ...(lastRun.summary ? { summary: lastRun.summary } : {}),
                }
              : null,
            ...(state.lastError ? { last_error: state.lastError } : {}),
          }
        : { state: "disabled" },
      posts_needing_user: (await this.syndication.reads.postsNeedingAttention()).needingUser,
      ...(sources.length > 0 ? { sources } : {}),
      ...(feeds.length > 0 ? { feeds } : {}),
    };
  }

  /**
   * Under possekit's host: views, locales, migrations and the core on the host's database and
   * posts. Under any other host (Indiekit, whose contract promises `addEndpoint` alone): the routes,
   * answering from what that host offers. Under both: refuses a mountPath another endpoint holds.
   */
  init(server: IndiekitServer): void | Promise<void> {
    const clash = mountPathClash(server.endpoints, this.mountPath, PACKAGE_NAME);
    if (!isPossekitServer(server)) {
      if (clash) refuseToStart(PACKAGE_NAME, clash);
      this.indiekit = {
        me: server.publication?.me ?? "",
        // Indiekit's configuration keeps no secrets; the spec names the environment variable.
        webhookSecret: process.env.WEBHOOK_SECRET || undefined,
      };
      if (this.options.database) return this.initWithOwnHost(server);
      server.addEndpoint(this);
      return;
    }
    if (clash) throw new ConfigError([clash]);
    const ownOnly = (["database", "syndicators"] as const).filter((name) => name in this.givenOptions);
    if (ownOnly.length > 0)
      throw new ConfigError(
        ownOnly.map(
          (name) =>
            `endpoint-syndicate: option "${name}" is for hosts without possekit's services (Indiekit): under possekit, remove it and set ${name === "database" ? "application.database" : "the targets in plugins"} in the config file`,
        ),
      );
    this.server = server;
    server.addViews(join(PACKAGE_ROOT, "views"));
    server.addLocales(join(PACKAGE_ROOT, "locales"));
    if (server.database && server.postSource) this.buildCore(server);
    server.addEndpoint(this);
  }

  /**
   * The package's entry gives the plug-in what builds its own host under Indiekit (src/hosts/indiekit,
   * which may assemble host pieces); null: the plug-in runs there without a database.
   */
  protected openOwnHost: OwnHostOpener | null = null;

  /** Under Indiekit with the `database` option: the core on the plug-in's own database. */
  private async initWithOwnHost(indiekit: IndiekitServer): Promise<void> {
    if (!this.openOwnHost) {
      indiekit.addEndpoint(this);
      return;
    }
    let own: OwnHost;
    try {
      own = await this.openOwnHost(indiekit, this.options);
    } catch (error) {
      refuseToStart(PACKAGE_NAME, error instanceof Error ? error.message : String(error));
    }
    this.server = own.server;
    this.ownHost = own;
    this.buildCore(own.server);
    await own.start();
    indiekit.addEndpoint(this);
  }

  /** The core on the host's database and posts, with its scheduler, recovery and notices. */
  private buildCore(server: Server): void {
    const { database, postSource } = server;
    if (!database || !postSource) return;
    server.addMigrations(syndicationMigrations);
    server.addMigrations(this.accountFlows.flatMap((flow) => flow.migrations ?? []));
    for (const flow of this.accountFlows) {
      const { rekey } = flow;
      if (rekey && isPossekitServer(server)) server.onRekey?.(() => rekey.call(flow, server));
    }
    this.sources = startPostSources(server, this.options.sources, this.environment);
    this.feeds = startFeedSources(server, this.options.feeds, {
      mountPath: this.mountPath,
      env: this.environment.env,
      // The feeds poll by the scheduler's clock when a test gives one (their leases' renewals too).
      now: this.environment.now ?? this.environment.time?.now,
      // The scheduler is made below, when the schedule is on.
      wake: () => this.scheduler?.nudge(),
      parseTimeLimitMs: this.environment.feedParseTimeLimitMs,
    });
    server.addMigrations(notificationMigrations);
    const notifications = notificationsFor(server, this.mountPath, this.environment.env);
    this.notifications = notifications ?? null;
    const notifier = notifications?.notifier;
    if (notifier) server.onShutdown(() => notifier.idle().then(() => notifier.close()));
    this.syndication = new Syndication({
      ...(notifier ? { notices: notifier } : {}),
      database,
      posts: postSource,
      syndicators: () => server.syndicators,
      publication: server.publication,
      logger: server.logger,
      options: {
        ...(this.environment.time
          ? { clock: this.environment.time.now, every: this.environment.time.every }
          : {}),
        targetTimeoutMs: this.options.targetTimeoutMs,
        leaseMs: this.options.leaseMs,
        retry: this.options.retry,
        schedule: {
          whenLive: this.options.schedule.whenLive,
          afterPublishMs: this.options.schedule.afterPublishMs,
        },
        fetchPolicy: { ownSite: server.publication.me, allowPrivate: server.config.fetch.allowPrivate },
      },
    });
    const syndication = this.syndication;
    // Micropub's mp-syndicate-thread, kept as the preview page's choice is (decision 0064).
    server.onThreadChoices?.(async (postUrl, choices) => {
      const post = await postSource.findByUrl(postUrl);
      if (!post) return;
      for (const [uid, thread] of Object.entries(choices)) {
        if (thread === null) await syndication.copies.resetThreadChoice(post, uid);
        else await syndication.copies.saveThreadChoice(post, uid, thread);
      }
    });
    // The page says how far a batch has got, also when opened mid-run.
    trackBatchProgress(syndication);
    if (notifier && isPossekitServer(server)) this.watchAccounts(server, notifier);
    // Only this process can open an embedded database: what it finds `sending` is left over, and
    // is resolved before the server takes its first request, scheduler or not.
    if (database.engine === "pglite")
      server.onStart(async () => {
        try {
          await syndication.runs.recoverAfterCrash();
        } catch (error) {
          server.logger.error("Could not resolve what the last process left", {
            error: error instanceof Error ? error.message : String(error),
          });
        }
      });
    // Checked in the background once the server listens: a slow service never delays the start.
    if (this.options.targets.checkAtStart)
      server.onStart(() => {
        void checkAtStart(syndication, server.logger);
      });
    server.onStart(() => {
      // An account saved is looked at at once: the posts waiting for a new one go out without
      // waiting for the scheduler's next turn, and a reconnected one is checked again first, so
      // that the posts its refused credentials held back go out by themselves.
      server.accounts?.onChange((change) => {
        if (change.kind === "saved")
          void lookAtSavedAccount(syndication, () => this.scheduler?.nudge(), change.account.uid, server);
      });
    });
    if (this.options.schedule.enabled) {
      const scheduler = new Scheduler(syndication, server.logger, {
        ...(this.options.schedule.maxSleepMs ? { maxSleepMs: this.options.schedule.maxSleepMs } : {}),
        ...(this.environment.time
          ? { clock: this.environment.time.now, after: this.environment.time.after }
          : {}),
        polled: () => (this.feeds ? [...this.sources, this.feeds] : this.sources),
      });
      this.scheduler = scheduler;
      const stopListening = postSource.onChange?.((change) => {
        if (mayBecomeDue(change)) scheduler.nudge();
      });
      server.onStart(() => scheduler.start());
      server.onShutdown(async () => {
        stopListening?.();
        // The scheduler may be waiting for its run, which ends when the core shuts down.
        await Promise.all([scheduler.stop(), syndication.runs.shutdown()]);
      });
    } else server.onShutdown(() => syndication.runs.shutdown());
  }

  /**
   * Starts each account flow's watch with the server (LinkedIn warns before a token ends), on the
   * endpoint's clock: nobody needs to open a page for the owner to be told.
   */
  private watchAccounts(server: PossekitServer, notifier: Notifier): void {
    const now = this.environment.time?.now ?? this.environment.now ?? Date.now;
    const every =
      this.environment.time?.every ??
      ((periodMs: number, tick: () => void) => {
        const timer = setInterval(tick, periodMs);
        timer.unref();
        return () => clearInterval(timer);
      });
    const accountsUrl = `${server.config.application.url.replace(/\/+$/, "")}${this.mountPath}/accounts`;
    server.onStart(() => {
      for (const flow of this.accountFlows) {
        const stop = flow.watch?.({
          server,
          now,
          every,
          accountsUrl,
          notify: (notice) => notifier.account(notice),
        });
        if (stop) server.onShutdown(stop);
      }
    });
  }

  /** Under Indiekit with its own database: hands back what the core holds and closes it (tests, signals). */
  async stopOwnHost(): Promise<void> {
    await this.ownHost?.stop();
  }
}

export interface EndpointEnvironment {
  env: NodeJS.ProcessEnv;
  /** The clock the sources poll by (tests). */
  now?: () => number;
  /** How long one feed's parse may take before it is ended (tests give a short one). */
  feedParseTimeLimitMs?: number;
  /**
   * How the core and its scheduler tell time: real time, and the database's clock in SQL, unless a
   * test gives its clock (test/helpers/clock.ts), which then moves instead of anyone waiting.
   */
  time?: { now: () => number; after: After; every: Every };
}

/**
 * The notifier: the channels set in the environment (NOTIFY_SMTP_URL, NOTIFY_WEBHOOK_URL:
 * docs/notifications.md) over those saved on the Notifications page, read again at each delivery.
 * A mistake in those variables stops the start with one line naming the variable.
 */
function notificationsFor(
  server: Server,
  mountPath: string,
  env: NodeJS.ProcessEnv,
): Notifications | undefined {
  let environment: NotificationSettings;
  try {
    environment = notificationSettings(env, server.publication.me);
  } catch (error) {
    if (error instanceof NotificationSettingsError) throw new ConfigError([error.message]);
    throw error;
  }
  const { database } = server;
  if (!database) return undefined;
  const store = new NotificationSettingsStore(database, () => server.secretSealer ?? null);
  server.onRekey?.(() => store.rekey());
  const fetchPolicy = { allowPrivate: server.config.fetch.allowPrivate };
  const pageUrl = `${server.config.application.url}${mountPath}`;
  const notifier = new Notifier({
    database,
    settings: async () => effectiveSettings(environment, store.available ? await store.settings() : {}),
    logger: server.logger,
    fetchPolicy,
    pageUrl,
    // Named only for a connected account, and those exist only where the Accounts page does.
    accountsUrl: `${server.config.application.url}${mountPath}/accounts`,
  });
  return { notifier, store, environment, fetchPolicy, pageUrl };
}

/** One line per target that would not take a post, naming the setting to fix; none for the others. */
async function checkAtStart(syndication: Syndication, logger: Server["logger"]): Promise<void> {
  try {
    const targets = await syndication.runs.checkTargets();
    for (const target of targets) {
      if (target.state === "ok" || target.state === "unchecked") continue;
      const fix = target.state === "refused" && target.setting ? `; check ${target.setting}` : "";
      logger.warn(`Syndication target ${target.name} is not usable: ${target.error ?? target.state}${fix}`, {
        target: target.uid,
      });
    }
  } catch (error) {
    logger.error("Could not check the syndication targets", {
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

/**
 * A change after which something may be due: a new, deleted or restored post, or an update of
 * anything but the links a run writes back (targets, status, and anything a copy shows, since copies
 * follow their post: decision 0028). Only a hint: the database notes every change that matters (see PostChanges).
 */
function mayBecomeDue(change: PostChange): boolean {
  if (change.kind !== "update") return true;
  const { replace, add, delete: deletion } = change.update;
  const deleted = Array.isArray(deletion) ? deletion : Object.keys(deletion ?? {});
  return (
    [...Object.keys(replace ?? {}), ...Object.keys(add ?? {})].some((name) => name !== "syndication") ||
    deleted.some((name) => name !== "syndication" && name !== "mp-syndicate-to")
  );
}

/**
 * Wakes the scheduler for a target just saved; one whose credentials were refused is checked again
 * first, and wakes it only when the check passes.
 */
async function lookAtSavedAccount(
  syndication: Syndication,
  wake: () => void,
  uid: string,
  server: Server,
): Promise<void> {
  try {
    const refused = (await syndication.reads.targets()).some(
      (target) => target.uid === uid && target.state === "refused",
    );
    if (!refused) {
      wake();
      return;
    }
    const [checked] = (await syndication.runs.checkTargets([uid])).filter((target) => target.uid === uid);
    if (checked?.state === "ok") wake();
  } catch (error) {
    server.logger.warn("Could not check a reconnected account again", {
      error: error instanceof Error ? error.message : String(error),
    });
  }
}
