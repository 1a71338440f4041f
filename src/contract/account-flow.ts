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

/** What a flow tells the owner by itself (e-mail, webhook): an account that will need them soon. */
export interface AccountNotice {
  targetUid: string;
  targetName: string;
  /** One line. */
  subject: string;
  /** What happens and what to do, with the link to follow. */
  text: string;
}

/** What a flow's watch is lent: the clock, a timer on it, and the owner's notifications. */
export interface AccountWatchContext {
  server: PossekitServer;
  now: () => number;
  /** Like setInterval, on the endpoint's clock; returns the cancel. */
  every: (periodMs: number, tick: () => void) => () => void;
  /** The Accounts page's full URL (its Reconnect links add ?reconnect={id}). */
  accountsUrl: string;
  notify(notice: AccountNotice): void;
}

export interface AccountFlow {
  /** The account type it connects, and the path segment its routes are under. */
  type: string;
  /** Its tables (the endpoint adds them to the host's migrations). */
  migrations?: Migration[];
  /** Built once, the first time one of its routes is asked for, with the running server. */
  routes(context: AccountFlowContext): Router;
  /**
   * What the Accounts page shows of the flow in the type's section besides its accounts, as the
   * page's template reads it (LinkedIn, Threads: whether the owner's app is entered, and the redirect
   * URL to list in it). Never a secret.
   */
  page?(context: Omit<AccountFlowContext, "now">): Promise<Record<string, unknown>>;
  /**
   * Looks after the connected accounts with nobody watching (LinkedIn: warns before a token ends),
   * from the server's start, when the owner's notifications are set up; returns what stops it.
   */
  watch?(context: AccountWatchContext): () => void;
  /** Seals what its tables keep sealed again under the current key (`possekit rekey`); how many. */
  rekey?(server: PossekitServer): Promise<number>;
}
