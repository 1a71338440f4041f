// A way to connect an account from the Accounts page that takes more than one form (the service's
// own AccountConnector, src/contract/accounts.ts, checks a form's fields): an OAuth flow (Mastodon)
// whose routes sit under the syndication endpoint, at {mountPath}/accounts/{type}/…, behind the
// endpoint's authentication, CSRF check and rate limit. The endpoint knows flows only through this
// interface; the package's entry (src/index.ts) hands it the built-in ones.
import type { Router } from "express";
import type { Migration } from "./database.ts";
import type { PossekitServer } from "./plugin.ts";

export interface AccountFlowContext {
  server: PossekitServer;
  /** Where the flow's routes are mounted, e.g. /syndicate/accounts/mastodon. */
  basePath: string;
  /** The Accounts page, where a connection ends (and its flash is shown). */
  accountsPath: string;
  /** The endpoint's clock (states expire by it). */
  now: () => number;
}

export interface AccountFlow {
  /** The account type it connects, and the path segment its routes are under. */
  type: string;
  /** Its tables (the endpoint adds them to the host's migrations). */
  migrations?: Migration[];
  /** Built once, the first time one of its routes is asked for, with the running server. */
  routes(context: AccountFlowContext): Router;
  /**
   * What the Accounts page shows in the type's section besides its accounts (Threads: whether the
   * owner's Meta app is set, and the redirect URI to list in it); never a secret.
   */
  page?(context: Omit<AccountFlowContext, "now">): Promise<Record<string, unknown>>;
  /** Seals what its tables keep sealed again under the current key (`possekit rekey`); how many. */
  rekey?(server: PossekitServer): Promise<number>;
}
