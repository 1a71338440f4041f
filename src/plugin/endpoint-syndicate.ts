// The syndication endpoint plug-in (spec §1, §2.4): what a server installs as
// "@possekit/endpoint-syndicate". The core (src/syndication) does the work; this class wires it to
// the host: routes, public webhook routes, navigation, views, locales and migrations.
import { join } from "node:path";
import type { EndpointPlugin, NavigationItem, PluginMeta, Server } from "../server/contract.ts";
import { PACKAGE_ROOT } from "../server/package-root.ts";
import { syndicationMigrations } from "../syndication/migrations.ts";
import { Syndication } from "../syndication/syndication.ts";
import { type EndpointOptions, parseEndpointOptions } from "./options.ts";
import { authenticatedRoutes, publicRoutes } from "./routes/index.ts";

export const PACKAGE_NAME = "@possekit/endpoint-syndicate";

export class EndpointSyndicate implements EndpointPlugin {
  readonly id = "endpoint-syndicate";
  readonly name = "Syndication endpoint";
  readonly options: EndpointOptions;
  readonly mountPath: string;
  readonly navigationItems: NavigationItem;
  readonly routes;
  readonly routesPublic;
  /** The core; null until init, and when the server runs without a database. */
  syndication: Syndication | null = null;
  private server: Server | null = null;

  constructor(options: Record<string, unknown> = {}) {
    this.options = parseEndpointOptions(options);
    this.mountPath = this.options.mountPath;
    this.navigationItems = { href: this.mountPath, text: "syndicate.title", requiresDatabase: true };
    const context = {
      mountPath: this.mountPath,
      options: this.options,
      syndication: () => this.syndication,
      server: () => this.server,
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

  init(server: Server): void {
    this.server = server;
    server.addViews(join(PACKAGE_ROOT, "views"));
    server.addLocales(join(PACKAGE_ROOT, "locales"));
    if (server.database && server.posts) {
      server.addMigrations(syndicationMigrations);
      this.syndication = new Syndication({
        database: server.database,
        posts: server.posts,
        syndicators: () => server.syndicators,
        publication: server.publication,
        logger: server.logger,
        options: { targetTimeoutMs: this.options.targetTimeoutMs, leaseMs: this.options.leaseMs },
      });
      const syndication = this.syndication;
      server.onShutdown(() => syndication.shutdown());
    }
    server.addEndpoint(this);
  }
}
