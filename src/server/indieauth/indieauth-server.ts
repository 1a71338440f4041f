// What the authorization, token and revocation endpoints share: the host, the owner's sessions,
// the token registry and the grants, and the server's own URLs.
import type { SessionManager } from "../auth/session.ts";
import type { TokenRegistry } from "../auth/token-registry.ts";
import type { RunningHost } from "../running-host.ts";
import type { IndieAuthUrls } from "./endpoints.ts";
import type { GrantStore } from "./grant-store.ts";

export interface IndieAuthServer {
  host: RunningHost;
  sessions: SessionManager;
  registry: TokenRegistry;
  store: GrantStore;
  urls: IndieAuthUrls;
  /** The owner: the `me` every token and every answer names. */
  me: string;
}
