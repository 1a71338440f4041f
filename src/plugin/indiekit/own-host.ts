// Under a host that offers none of possekit's services (Indiekit), the plug-in brings its own: a
// database (the `database` option), the posts table, and the targets. This port is what the plug-in
// asks for; the package's entry (src/index.ts) hands it the implementation in src/hosts/indiekit,
// the one layer allowed to assemble host pieces (the plug-in itself imports only the contract).
import type { IndiekitServer, PossekitServer } from "../../contract/plugin.ts";
import type { EndpointOptions } from "../options.ts";

export interface OwnHost {
  /** What the core is built on, as under possekit's host. */
  readonly server: PossekitServer;
  /** Applies every migration added so far, then runs the start handlers. */
  start(): Promise<void>;
  /** Runs the shutdown handlers and closes the database (and lets go of its folder). */
  stop(): Promise<void>;
}

export type OwnHostOpener = (host: IndiekitServer, options: EndpointOptions) => Promise<OwnHost>;
