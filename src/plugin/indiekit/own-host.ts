// Under a host that offers none of possekit's services (Indiekit), the plug-in brings its own: a
// database (the `database` option), the posts table, and the targets. This port is what the plug-in
// asks for; the package's entry (src/index.ts) hands it the implementation in src/hosts/indiekit,
// the one layer allowed to assemble host pieces (the plug-in itself imports only the contract).
import type { RequestHandler, Router } from "express";
import type { IndiekitServer, PossekitServer } from "../../contract/plugin.ts";
import type { EndpointOptions } from "../options.ts";

export interface OwnHost {
  /** What the core is built on, as under possekit's host. */
  readonly server: PossekitServer;
  /** Applies every migration added so far, then runs the start handlers. */
  start(): Promise<void>;
  /** Runs the shutdown handlers and closes the database (and lets go of its folder). */
  stop(): Promise<void>;
  /** The page as a page of its own: Indiekit's views know nothing of our layout. */
  readonly page: OwnPage;
}

/** What renders the plug-in's pages where the host's views cannot. */
export interface OwnPage {
  /** Our stylesheets and scripts, beneath the mountPath (public: a stylesheet needs no sign-in). */
  readonly assets: Router;
  /**
   * Before the routes: res.render and res.locals.renderTemplate render with our views, and the
   * locals our layout reads (dates in the reader's language, assetsPath, navigation) are set.
   */
  readonly locals: RequestHandler;
}

export type OwnHostOpener = (host: IndiekitServer, options: EndpointOptions) => Promise<OwnHost>;
