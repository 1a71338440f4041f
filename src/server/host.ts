// The host publishing server: loads plug-ins, keeps the plug-in contract (spec §2.4, §4.3), owns the
// database and the post service, and starts and stops the HTTP server.

import { randomBytes } from "node:crypto";
import type { Server as HttpServer } from "node:http";
import { join } from "node:path";
import type { Database, Migration } from "../contract/database.ts";
import type { MicropubPort } from "../contract/micropub.ts";
import type {
  EndpointPlugin,
  HostConfigView,
  Plugin,
  Server,
  SyndicatorPlugin,
  ThreadChoicesHandler,
} from "../contract/plugin.ts";
import type { PostSource } from "../contract/post-source.ts";
import { publicationProblem } from "../contract/publication-check.ts";
import type { Publication } from "../contract/syndicator.ts";
import { AccountStore } from "./accounts/account-store.ts";
import { ConnectedAccounts } from "./accounts/connected-accounts.ts";
import { accountMigrations } from "./accounts/migrations.ts";
import { SecretBox } from "./accounts/secret-box.ts";
import { buildApp } from "./app.ts";
import { sessionRevocationMigrations } from "./auth/session-revocations.ts";
import { tokenRegistryMigrations } from "./auth/token-registry.ts";
import { TokenIssuer } from "./auth/tokens.ts";
import { type After, BackupSchedule } from "./backup/backup-schedule.ts";
import { type BackupManifest, makeBackup } from "./backup/make-backup.ts";
import { ConfigError, type HostConfig } from "./config/load.ts";
import { FolderLock } from "./database/folder-lock.ts";
import { migrate } from "./database/migrate.ts";
import { openDatabase } from "./database/open.ts";
import { I18n } from "./i18n.ts";
import { indieauthMigrations } from "./indieauth/grant-store.ts";
import type { Logger } from "./logger.ts";
import { MediaStore } from "./media/media-store.ts";
import { MicropubEndpoint } from "./micropub/micropub-endpoint.ts";
import { PACKAGE_ROOT } from "./package-root.ts";
import { type BuiltInPlugins, hostPlugins, loadPlugins } from "./plugins.ts";
import { HostKnownPosts } from "./posts/known-posts.ts";
import { postMigrations } from "./posts/migrations.ts";
import { createPostService } from "./posts/post-service.ts";
import type { PostService } from "./posts/post-service-interface.ts";
import { hostPostSource } from "./posts/post-source.ts";
import { rateLimitMigrations } from "./rate-limit-store.ts";
import type { RunningHost } from "./running-host.ts";
import { storeMigrations } from "./stores/migrations.ts";
import { openStore } from "./stores/open-store.ts";
import { PublishingPosts } from "./stores/publishing-posts.ts";
import { Views } from "./views.ts";

/** How often changes the site's store refused are tried again (each waits its own back-off too). */
const STORE_RETRY_MS = 30_000;
/** How often an instance on a shared PostgreSQL reads the connected accounts again. */
const ACCOUNT_SYNC_MS = 30_000;

const MICROPUB_PACKAGE = "@possekit/endpoint-micropub";
const KEBAB_CASE = /^[a-z0-9]+(-[a-z0-9]+)*$/;

export interface HostOptions {
  logger: Logger;
  /** Plug-in instances to install besides those named in the config (tests, embedding). */
  plugins?: Plugin[];
  /** An already open database to use instead of the configured one (tests). */
  database?: Database;
  /**
   * Plug-ins the config may name by package name besides the host's own Micropub endpoint: the
   * command line passes those this package ships (src/built-in-plugins.ts).
   */
  builtInPlugins?: BuiltInPlugins;
  /** The clock of scheduled backups (a test's; real time by default). */
  backupClock?: { now: () => number; after: After };
}

export class Host implements Server, RunningHost {
  readonly publication: Publication;
  readonly logger: Logger;
  readonly i18n = new I18n();
  readonly views: Views;
  readonly tokens: TokenIssuer;
  readonly media: MediaStore;
  readonly endpoints: EndpointPlugin[] = [];
  readonly syndicators: SyndicatorPlugin[] = [];
  readonly plugins: Plugin[] = [];
  database: Database | null = null;
  /** The host's own post service (the Micropub endpoint's); plug-ins get `postSource`. */
  posts: PostService | null = null;
  /** Every post the core may send: the site's own and those kept from elsewhere. */
  postSource: PostSource | null = null;
  knownPosts: HostKnownPosts | null = null;
  /** The accounts connected from the Accounts page; null without a database. */
  accounts: ConnectedAccounts | null = null;
  /** The accounts' secret box, lent to plug-ins for their own secrets; null without a database. */
  secretSealer: SecretBox | null = null;
  /** The post service with every change taken to the content store (publication.store). */
  publishing: PublishingPosts | null = null;
  private storeRetry: NodeJS.Timeout | null = null;
  private accountSync: NodeJS.Timeout | null = null;
  private readonly migrations: Migration[] = [
    ...postMigrations,
    ...storeMigrations,
    ...rateLimitMigrations,
    ...sessionRevocationMigrations,
    ...tokenRegistryMigrations,
    ...indieauthMigrations,
    ...accountMigrations,
  ];
  private readonly startHandlers: Array<() => Promise<void> | void> = [];
  private readonly shutdownHandlers: Array<() => Promise<void> | void> = [];
  private readonly rekeyHandlers: Array<() => Promise<number>> = [];
  private readonly threadChoiceHandlers: ThreadChoicesHandler[] = [];
  private httpServer: HttpServer | null = null;
  /** Held while this process has an embedded database folder open. */
  private folderLock: FolderLock | null = null;
  /** The credential of the local routes, written into the folder's lock once the server listens. */
  private readonly lockKey = randomBytes(32).toString("base64url");
  /** Scheduled backups (the config's backup.every), once the server listens. */
  backups: BackupSchedule | null = null;

  constructor(
    readonly hostConfig: HostConfig,
    private readonly options: HostOptions,
  ) {
    this.logger = options.logger;
    this.publication = { ...hostConfig.publication };
    this.views = new Views(join(PACKAGE_ROOT, "views"), hostConfig.production);
    this.i18n.addFolder(join(PACKAGE_ROOT, "locales"));
    this.tokens = new TokenIssuer(hostConfig.secrets.secret, this.publication.me);
    this.media = new MediaStore(
      hostConfig.media.folder,
      hostConfig.application.url,
      hostConfig.media.maxBytes,
    );
  }

  /** The host's Micropub endpoint's own code, for pages that write posts (the compose page). */
  get micropub(): MicropubPort | null {
    if (!this.posts) return null;
    const endpoint = this.endpoints.find((candidate) => candidate instanceof MicropubEndpoint);
    return endpoint instanceof MicropubEndpoint ? endpoint.service : null;
  }

  get config(): HostConfigView {
    const { application, secrets, production } = this.hostConfig;
    return {
      application: { name: application.name, url: application.url, locale: application.locale, production },
      secrets: { webhookSecret: secrets.webhookSecret },
      fetch: { allowPrivate: this.hostConfig.file.fetch.allowPrivate },
    };
  }

  pluginOptions(packageName: string): Record<string, unknown> {
    const entry = this.hostConfig.file[packageName];
    return entry && typeof entry === "object" && !Array.isArray(entry)
      ? (entry as Record<string, unknown>)
      : {};
  }

  addEndpoint(plugin: EndpointPlugin): void {
    if (!KEBAB_CASE.test(plugin.id)) throw new Error(`Plug-in id "${plugin.id}" must be kebab-case`);
    if (typeof plugin.mountPath !== "string" || !plugin.mountPath.startsWith("/")) {
      throw new Error(`Endpoint plug-in "${plugin.id}": mountPath must be a path starting with "/"`);
    }
    // Express matches paths case-insensitively and ignores a trailing slash, so "/a", "/a/" and "/A" clash.
    const matchKey = (path: string) => path.replace(/\/+$/, "").toLowerCase();
    const clash = this.endpoints.find((other) => matchKey(other.mountPath) === matchKey(plugin.mountPath));
    if (clash)
      throw new Error(
        `Endpoint plug-ins "${clash.id}" and "${plugin.id}" share the mountPath ${plugin.mountPath}`,
      );
    this.endpoints.push(plugin);
  }

  addSyndicator(plugin: SyndicatorPlugin): void {
    const clash = this.syndicators.find((other) => other.info.uid === plugin.info.uid);
    if (clash)
      throw new Error(`Two syndication targets share the uid ${plugin.info.uid}; each uid must be unique`);
    this.syndicators.push(plugin);
  }

  /** Unregisters a target (a connected account removed at run time); false when none has the uid. */
  removeSyndicator(uid: string): boolean {
    const index = this.syndicators.findIndex((syndicator) => syndicator.info.uid === uid);
    if (index < 0) return false;
    // In place: every reader holds this very array and sees the change at its next read.
    this.syndicators.splice(index, 1);
    return true;
  }

  addViews(folder: string): void {
    this.views.add(folder);
  }

  addLocales(folder: string): void {
    this.i18n.addFolder(folder);
  }

  addMigrations(migrations: Migration[]): void {
    this.migrations.push(...migrations);
  }

  onStart(handler: () => Promise<void> | void): void {
    this.startHandlers.push(handler);
  }

  onShutdown(handler: () => Promise<void> | void): void {
    this.shutdownHandlers.push(handler);
  }

  onRekey(handler: () => Promise<number>): void {
    this.rekeyHandlers.push(handler);
  }

  onThreadChoices(handler: ThreadChoicesHandler): void {
    this.threadChoiceHandlers.push(handler);
  }

  /** Hands a post's thread choices from Micropub to the plug-ins that keep them (decision 0064). */
  async saveThreadChoices(postUrl: string, choices: Readonly<Record<string, boolean | null>>): Promise<void> {
    for (const handler of this.threadChoiceHandlers) await handler(postUrl, choices);
  }

  /** Seals every stored secret again under the current key: the accounts' and the plug-ins' own. */
  async rekey(): Promise<number> {
    let count = (await this.accounts?.rekey()) ?? 0;
    for (const handler of this.rekeyHandlers) count += await handler();
    return count;
  }

  /** Opens the database, installs every plug-in and applies migrations; does not listen. */
  async prepare(): Promise<void> {
    // The plug-ins' modules load while the embedded database starts (its files are read and its
    // WebAssembly compiled in the meantime): a warm start is shorter by the overlap (decision 0030).
    const [opened, loaded] = await Promise.allSettled([
      this.openConfiguredDatabase(),
      this.loadConfiguredPlugins(),
    ]);
    if (opened.status === "rejected") throw opened.reason;
    if (loaded.status === "rejected") throw loaded.reason;
    if (this.database) {
      const posts = createPostService(this.database, this.hostConfig.publication);
      const store = openStore(this.hostConfig, this.database, this.logger);
      // Uploads go into the site's repository too, and are named by their URL there.
      const { mediaUrl, publishMedia } = store;
      if (mediaUrl && publishMedia)
        this.media.publishTo({
          url: (name) => mediaUrl.call(store, name),
          publish: (files) => publishMedia.call(store, files),
        });
      this.publishing = new PublishingPosts(posts, store, this.database, this.logger);
      this.posts = this.publishing;
      this.knownPosts = new HostKnownPosts(this.database);
      this.postSource = hostPostSource({
        own: this.publishing,
        all: createPostService(this.database, this.hostConfig.publication, "all"),
        known: this.knownPosts,
        logger: this.logger,
      });
    }
    const fromConfig = loaded.value;
    for (const plugin of [...fromConfig, ...(this.options.plugins ?? [])]) {
      if (!KEBAB_CASE.test(plugin.id)) throw new Error(`Plug-in id "${plugin.id}" must be kebab-case`);
      this.plugins.push(plugin);
      await plugin.init(this);
    }
    for (const warning of this.installationWarnings()) this.logger.warn(warning);
    const problem = publicationProblem(this.publication.me, this.syndicators);
    if (problem && this.hostConfig.production) throw new ConfigError([problem]);
    if (problem) this.logger.warn(problem);
    if (this.database) {
      await migrate(this.database, this.migrations);
      // Here, before listen() runs the start handlers: a feed's check of the targets it names
      // (src/plugin/feed-sources.ts) must see the accounts connected from the page.
      await this.startAccounts(this.database);
    }
  }

  /** After the configured targets: those win over a connected account with the same uid. */
  private async startAccounts(database: Database): Promise<void> {
    const { current, old } = this.hostConfig.secrets.accountKeys();
    const box = new SecretBox(current, old);
    this.secretSealer = box;
    const store = new AccountStore(database, box);
    const builtIns = { ...this.options.builtInPlugins, ...hostPlugins };
    const classOf = async (packageName: string) =>
      Object.hasOwn(builtIns, packageName) ? await builtIns[packageName]?.() : undefined;
    const accounts = new ConnectedAccounts(
      store,
      { syndicators: this.syndicators, removeSyndicator: (uid) => this.removeSyndicator(uid), server: this },
      classOf,
      this.logger,
      this.hostConfig.file.fetch.allowPrivate,
    );
    await accounts.start();
    this.accounts = accounts;
    // Instances sharing PostgreSQL see the accounts another one connected or removed.
    if (database.engine === "postgres") {
      this.accountSync = setInterval(() => {
        accounts.sync().catch((error: unknown) =>
          this.logger.warn("Could not read the connected accounts again", {
            error: error instanceof Error ? error.message : String(error),
          }),
        );
      }, ACCOUNT_SYNC_MS);
      this.accountSync.unref();
    }
  }

  private async openConfiguredDatabase(): Promise<void> {
    if (this.options.database) this.database = this.options.database;
    else if (this.hostConfig.database !== false) {
      const location = this.hostConfig.database;
      // An embedded folder is this process's alone (see folder-lock.ts); PostgreSQL is shared.
      if (!/^postgres(ql)?:\/\//.test(location) && location !== "memory:")
        this.folderLock = FolderLock.take(location, this.logger);
      try {
        this.database = await openDatabase(location);
      } catch (error) {
        this.folderLock?.release();
        throw error;
      }
    }
  }

  private loadConfiguredPlugins(): Promise<Plugin[]> {
    // The host's own Micropub endpoint is always there: posts enter the server through it.
    const names = this.hostConfig.file.plugins.includes(MICROPUB_PACKAGE)
      ? this.hostConfig.file.plugins
      : [MICROPUB_PACKAGE, ...this.hostConfig.file.plugins];
    const builtIns = { ...this.options.builtInPlugins, ...hostPlugins };
    return loadPlugins(names, (name) => this.pluginOptions(name), this.hostConfig.baseDir, builtIns).catch(
      (error: unknown) => {
        throw error instanceof ConfigError ? new ConfigError(error.problems, this.hostConfig.source) : error;
      },
    );
  }

  /** What starts but is most likely not what was meant: logged, one line each. */
  private installationWarnings(): string[] {
    const warnings = [...this.hostConfig.warnings];
    const hasEndpoint = this.plugins.some((plugin) => plugin.id === "endpoint-syndicate");
    if (!hasEndpoint && this.syndicators.length > 0)
      warnings.push(
        `plugins: ${this.syndicators.map((s) => s.info.uid).join(", ")} will never be sent to: add "@possekit/endpoint-syndicate" to plugins`,
      );
    else if (!hasEndpoint && this.hostConfig.file.plugins.length > 0)
      warnings.push(
        'plugins: "@possekit/endpoint-syndicate" is not listed, so there is no Syndicate page or endpoint',
      );
    return warnings;
  }

  async listen(): Promise<{ url: string; port: number }> {
    // Before the first request can arrive: a plug-in resolves what a crash left before anything new starts.
    const abandoned = await this.media.sweepAbandoned();
    if (abandoned > 0)
      this.logger.info("Removed partial uploads left by an earlier process", { count: abandoned });
    // What a stopped process left in the store (a commit not pushed) is finished before new changes.
    const publishing = this.publishing;
    if (publishing) {
      await publishing.retryPending();
      this.storeRetry = setInterval(() => {
        publishing
          .retryPending()
          .catch((error: unknown) =>
            this.logger.error("Retrying the site's store failed", { error: (error as Error).message }),
          );
      }, STORE_RETRY_MS);
      this.storeRetry.unref();
    }
    for (const handler of this.startHandlers) await handler();
    const { everyMs, keep, folder } = this.hostConfig.backup;
    if (everyMs !== null) {
      this.backups = new BackupSchedule({
        everyMs,
        keep,
        folder,
        make: (now) => this.backup(now),
        logger: this.logger,
        ...(this.options.backupClock ?? {}),
      });
      this.backups.start();
    }
    const app = buildApp(this);
    const { port: wanted, host } = this.hostConfig.application;
    const server = app.listen(wanted, host);
    this.httpServer = server;
    try {
      await new Promise<void>((resolveListen, reject) => {
        server.once("listening", resolveListen);
        server.once("error", reject);
      });
    } catch (error) {
      this.httpServer = null;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EADDRINUSE")
        throw new ConfigError([
          `application.port: ${wanted} is in use by another program on ${host}; stop it, or choose a free port with PORT=${wanted + 1} or application.port`,
        ]);
      if (code === "EACCES")
        throw new ConfigError([
          `application.port: ${wanted} needs privileges this process lacks; choose a port above 1023 (PORT=3000) and put a reverse proxy in front`,
        ]);
      if (code === "EADDRNOTAVAIL")
        throw new ConfigError([
          `application.host: ${host} is no address of this machine; write 127.0.0.1, or 0.0.0.0 for every interface`,
        ]);
      throw error;
    }
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : this.hostConfig.application.port;
    this.folderLock?.setUrl(`http://${this.loopbackHost()}:${port}`, this.lockKey);
    return { url: `http://localhost:${port}`, port };
  }

  /** Where a process on this machine reaches the server (the command line asking it to syndicate). */
  private loopbackHost(): string {
    const host = this.hostConfig.application.host;
    if (!host || host === "0.0.0.0" || host === "::") return "127.0.0.1";
    return host.includes(":") ? `[${host}]` : host;
  }

  /**
   * The credential of the server's local routes (routes/backup.ts) while it holds an embedded
   * database folder; null otherwise (nothing only this process could do).
   */
  get localKey(): string | null {
    return this.folderLock ? this.lockKey : null;
  }

  /** A backup of what this server holds now (backup/make-backup.ts). */
  backup(now: () => number = Date.now): Promise<{ file: Buffer; manifest: BackupManifest }> {
    return makeBackup({
      database: this.database,
      dataDir: this.hostConfig.application.dataDir,
      mediaFolder: this.hostConfig.media.folder,
      now,
    });
  }

  get listening(): HttpServer | null {
    return this.httpServer;
  }

  /** Lets in-flight requests finish, lets plug-ins hand back what they hold, closes the database. */
  async stop(): Promise<void> {
    const server = this.httpServer;
    this.httpServer = null;
    if (this.storeRetry) clearInterval(this.storeRetry);
    if (this.accountSync) clearInterval(this.accountSync);
    if (server) {
      const closed = new Promise<void>((done) => server.close(() => done()));
      // A keep-alive connection busy when the close began turns idle once its response is sent; close
      // it then, rather than waiting for the client (or keepAliveTimeout) to let go of it.
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      server.closeIdleConnections();
      await closed;
      clearInterval(sweep);
    }
    // A backup being written finishes before the database closes.
    await this.backups?.stop();
    for (const handler of this.shutdownHandlers) await handler();
    if (this.database && !this.options.database) await this.database.close();
    this.folderLock?.release();
  }
}
