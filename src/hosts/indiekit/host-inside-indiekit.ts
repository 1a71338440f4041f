// possekit's services for the plug-in inside Indiekit, which offers none of them: the plug-in's own
// database (its `database` option: a PGlite folder this process holds alone, or PostgreSQL), the
// posts table and its migrations, the core's migrations, possekit's targets from the plug-in's
// `syndicators` option and Indiekit's own syndicators as targets. Nothing is asked of Indiekit
// beyond what it offers a plug-in: addEndpoint, its endpoints, its publication and configuration.
import type { Database, Migration } from "../../contract/database.ts";
import type { Logger } from "../../contract/logger.ts";
import type { MediaLibrary } from "../../contract/media.ts";
import type {
  EndpointPlugin,
  HostConfigView,
  IndiekitServer,
  PossekitServer,
  SyndicatorPlugin,
} from "../../contract/plugin.ts";
import type { PostSource } from "../../contract/post-source.ts";
import type { Publication } from "../../contract/syndicator.ts";
import { type IndiekitSyndicator, indiekitTargets } from "../../plugin/indiekit/indiekit-syndicators.ts";
import { ownDatabaseLocation } from "../../plugin/indiekit/own-database-options.ts";
import type { OwnHost } from "../../plugin/indiekit/own-host.ts";
import type { EndpointOptions } from "../../plugin/options.ts";
import { FolderLock } from "../../server/database/folder-lock.ts";
import { migrate } from "../../server/database/migrate.ts";
import { openDatabase } from "../../server/database/open.ts";
import { createLogger, logLevelFromEnv } from "../../server/logger.ts";
import { HostKnownPosts } from "../../server/posts/known-posts.ts";
import { postMigrations } from "../../server/posts/migrations.ts";
import { createPostService } from "../../server/posts/post-service.ts";
import { hostPostSource } from "../../server/posts/post-source.ts";
import { ownPage } from "./own-page.ts";

/** What Indiekit passes to init(), as far as this host reads it (Indiekit's `Indiekit` instance). */
export interface IndiekitHost extends IndiekitServer {
  readonly config?: {
    application?: { name?: string; url?: string; locale?: string; timeZone?: string };
  };
  readonly publication?: {
    me?: string;
    locale?: string;
    timeZone?: string;
    /** Filled by Indiekit's syndicator plug-ins; read at each use (later plug-ins add theirs). */
    syndicationTargets?: IndiekitSyndicator[];
  };
}

/** Indiekit has no uploads of possekit's kind: a photo of a post is fetched by its URL. */
const NO_MEDIA: MediaLibrary = {
  maxBytes: 0,
  save: () => Promise.reject(new Error("Uploads go through Indiekit's media endpoint")),
  remove: () => Promise.resolve(),
  nameOf: () => undefined,
  read: () => Promise.resolve(undefined),
};

class HostInsideIndiekit implements PossekitServer {
  readonly publication: Publication;
  readonly config: HostConfigView;
  readonly media = NO_MEDIA;
  readonly postSource: PostSource;
  readonly knownPosts: HostKnownPosts;
  readonly ours: SyndicatorPlugin[] = [];
  readonly migrations: Migration[] = [...postMigrations];
  readonly startHandlers: Array<() => Promise<void> | void> = [];
  readonly shutdownHandlers: Array<() => Promise<void> | void> = [];

  constructor(
    private readonly indiekit: IndiekitHost,
    readonly database: Database,
    readonly logger: Logger,
  ) {
    const application = indiekit.config?.application ?? {};
    const me = indiekit.publication?.me ?? "";
    this.publication = {
      me,
      // Never used to make a URL: the plug-in's rows are Indiekit's posts, each with its own URL.
      postUrlPattern: "{me}{slug}",
      timezone: indiekit.publication?.timeZone ?? application.timeZone ?? "UTC",
      name: application.name ?? "Indiekit",
    };
    this.config = {
      application: {
        name: application.name ?? "Indiekit",
        url: application.url ?? me,
        locale: application.locale ?? indiekit.publication?.locale,
        production: process.env.NODE_ENV === "production",
      },
      // Indiekit's configuration keeps no secrets; the spec names the environment variable.
      secrets: { webhookSecret: process.env.WEBHOOK_SECRET || undefined },
      fetch: { allowPrivate: false },
    };
    // Indiekit's posts come in as posts from elsewhere (a Micropub source on Indiekit's endpoint);
    // the plug-in has no posts of its own, and no content store behind them.
    this.knownPosts = new HostKnownPosts(database);
    this.postSource = hostPostSource({
      own: createPostService(database, this.publication),
      all: createPostService(database, this.publication, "all"),
      known: this.knownPosts,
      logger,
    });
  }

  get endpoints(): readonly EndpointPlugin[] {
    return [...(this.indiekit.endpoints ?? [])] as EndpointPlugin[];
  }

  /** Ours, then Indiekit's (read now: syndicator plug-ins listed after ours add theirs later). */
  get syndicators(): readonly SyndicatorPlugin[] {
    const theirs = indiekitTargets(this.indiekit.publication?.syndicationTargets, this.indiekit.publication);
    const ourUids = new Set(this.ours.map((target) => target.info.uid));
    return [...this.ours, ...theirs.filter((target) => !ourUids.has(target.info.uid))];
  }

  pluginOptions(): Record<string, unknown> {
    return {};
  }

  addEndpoint(plugin: EndpointPlugin): void {
    this.indiekit.addEndpoint(plugin);
  }

  addSyndicator(plugin: SyndicatorPlugin): void {
    if (this.ours.some((other) => other.info.uid === plugin.info.uid))
      throw new Error(`Two syndication targets share the uid ${plugin.info.uid}; each uid must be unique`);
    this.ours.push(plugin);
  }

  // Our views and words are found by the plug-in's own rules under Indiekit (see docs/indiekit.md).
  addViews(): void {}
  addLocales(): void {}

  addMigrations(migrations: Migration[]): void {
    this.migrations.push(...migrations);
  }

  onStart(handler: () => Promise<void> | void): void {
    this.startHandlers.push(handler);
  }

  onShutdown(handler: () => Promise<void> | void): void {
    this.shutdownHandlers.push(handler);
  }
}

/**
 * Opens the plug-in's own database and builds possekit's services around Indiekit. A folder held
 * by another process is refused (DatabaseHeldError), never opened twice.
 *
 * @example const own = await openHostInsideIndiekit(indiekit, options); ...; await own.start();
 */
export async function openHostInsideIndiekit(
  indiekit: IndiekitHost,
  options: EndpointOptions,
  logger: Logger = createLogger(logLevelFromEnv()),
): Promise<OwnHost> {
  if (!options.database) throw new Error("The plug-in's own host needs the database option");
  const location = ownDatabaseLocation(options.database);
  const lock = options.database.folder ? FolderLock.take(location, logger) : null;
  let database: Database;
  try {
    database = await openDatabase(location);
  } catch (error) {
    lock?.release();
    throw error;
  }
  const host = new HostInsideIndiekit(indiekit, database, logger);
  await addOurSyndicators(host, options.syndicators);
  let stopped: Promise<void> | null = null;
  const stop = () => {
    stopped ??= (async () => {
      for (const handler of host.shutdownHandlers) await handler();
      await database.close();
      lock?.release();
    })();
    return stopped;
  };
  const page = ownPage({
    mountPath: options.mountPath,
    name: host.config.application.name,
    publication: { me: host.publication.me, name: host.publication.name },
    timezone: host.publication.timezone,
    production: host.config.application.production,
  });
  return {
    server: host,
    page,
    async start() {
      await migrate(database, host.migrations);
      for (const handler of host.startHandlers) await handler();
      // Indiekit gives plug-ins no shutdown hook: its own SIGINT/SIGTERM handlers close the server
      // and exit. Ours hand back what the core holds meanwhile; the folder lock goes at exit anyway.
      for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void stop());
    },
    stop,
  };
}

/** possekit's targets named in the plug-in's `syndicators` option, constructed and joined. */
async function addOurSyndicators(
  host: HostInsideIndiekit,
  wanted: Record<string, Record<string, unknown>>,
): Promise<void> {
  const names = Object.keys(wanted);
  if (names.length === 0) return;
  const { builtInSyndicators } = await import("../../syndicators/index.ts");
  for (const name of names) {
    const Syndicator = builtInSyndicators[name];
    if (!Syndicator)
      throw new Error(
        `option "syndicators" names ${name}, which this package does not have: write one of ${Object.keys(builtInSyndicators).join(", ")}`,
      );
    await new Syndicator(wanted[name] ?? {}).init(host);
  }
}
