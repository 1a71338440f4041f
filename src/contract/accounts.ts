/**
 * Connected accounts: the syndication targets a user connects from the Accounts page (or the
 * command line) instead of the config file. The host keeps them in its database, their secrets
 * sealed (AES-256-GCM, src/server/accounts/secret-box.ts), and registers each as a syndicator in the
 * running server at once: `server.syndicators`, `q=syndicate-to`, the page and the scheduler see a
 * connected account without a restart, and no longer see a removed one.
 *
 * A plug-in reaches them as `server.accounts` (null without a database, absent under Indiekit).
 *
 * ```ts
 * const accounts = server.accounts;
 * // Adds the account, or replaces the one with the same target uid (a reconnect). The syndicator is
 * // built from `options` plus the secrets it takes as options (ACCOUNT_TYPES[type].optionSecrets) and
 * // registered; its uid is the syndicator's own (Mastodon: https://<instance>/@<user>).
 * const account = await accounts.save({
 *   type: "mastodon",
 *   options: { url: "https://social.example", user: "alice" },      // never a secret here
 *   display: { name: "@alice@social.example", url: "https://social.example/@alice",
 *              photo: "https://social.example/avatars/alice.png", instance: "social.example" },
 *   // Sealed before they are stored; never rendered back. Mastodon's OAuth flow also keeps the
 *   // app it registered, so that disconnecting can call /oauth/revoke: `clientId`, `clientSecret`.
 *   secrets: { accessToken: "…", clientId: "…", clientSecret: "…" },
 * });
 * await accounts.list();                 // every connected account, secrets only as `secretsSetAt`
 * await accounts.secrets(account.id);    // the opened secrets, to revoke them (never log them)
 * await accounts.markNeedsReconnect(account.id, "the instance refused the token (401)");
 * await accounts.remove(account.id);     // unregistered at once, its secrets deleted
 * ```
 *
 * The Accounts page's routes (src/plugin/routes/accounts.ts) take `{ mastodonAuthorize }`: a route
 * handler for `POST {mountPath}/accounts/mastodon/authorize` (a form field `instance`); given, it is
 * mounted behind the same owner-only, CSRF and rate-limit rules, and the page's Mastodon section
 * shows a "Connect with your instance" form posting to it.
 *
 * Service-specific checks live with each syndicator as `static account: AccountConnector`
 * (src/syndicators/<service>/<service>-account.ts), reached through `accounts.connect(type, fields)`
 * and `accounts.disconnect(id)`. Mastodon's disconnect calls POST /oauth/revoke when the account's
 * secrets hold `clientId` and `clientSecret` beside `accessToken`; without them it tells the user to
 * revoke the token by hand. `verifyMastodonToken(instance, token, context)` in
 * src/syndicators/mastodon/mastodon-account.ts says whose a token is (verify_credentials, under the
 * private-address rules) and gives the `options` and `display` to save.
 *
 * `save` throws an AccountError (its message is for the user) when the options are not what the
 * syndicator accepts, or when the config file already defines a target with that uid: the config
 * file wins, and such a target cannot be connected or changed from the page.
 */

/** The kinds of target an account can be connected for. */
export type AccountType =
  | "mastodon"
  | "bluesky"
  | "micropub"
  | "internet-archive"
  | "linkedin"
  | "threads"
  | "nostr";

export const ACCOUNT_TYPE_NAMES: readonly AccountType[] = [
  "mastodon",
  "bluesky",
  "micropub",
  "internet-archive",
  "linkedin",
  "threads",
  "nostr",
];

/**
 * Per type: the syndicator package an account becomes, and which of its secrets that syndicator
 * takes as options (the others, such as Mastodon's clientId/clientSecret, are kept only for revoking).
 */
export const ACCOUNT_TYPES: Readonly<
  Record<AccountType, { packageName: string; optionSecrets: readonly string[] }>
> = {
  mastodon: { packageName: "@possekit/syndicator-mastodon", optionSecrets: ["accessToken"] },
  bluesky: { packageName: "@possekit/syndicator-bluesky", optionSecrets: ["password"] },
  micropub: { packageName: "@possekit/syndicator-micropub", optionSecrets: ["accessToken"] },
  "internet-archive": {
    packageName: "@possekit/syndicator-internet-archive",
    optionSecrets: ["accessKey", "secretKey"],
  },
  // The OAuth flow also keeps the owner's app (clientId, clientSecret), to revoke the token.
  linkedin: { packageName: "@possekit/syndicator-linkedin", optionSecrets: ["accessToken"] },
  threads: { packageName: "@possekit/syndicator-threads", optionSecrets: ["accessToken"] },
  nostr: { packageName: "@possekit/syndicator-nostr", optionSecrets: ["secretKey", "clientSecretKey"] },
};

/**
 * The relays a Nostr account publishes to unless the user edits the list (the Accounts page fills
 * its form with them; the syndicator's `relays` option defaults to them): public relays that take
 * notes from anyone.
 */
export const NOSTR_DEFAULT_RELAYS: readonly string[] = [
  "wss://relay.damus.io",
  "wss://nos.lol",
  "wss://relay.primal.net",
];

export function isAccountType(value: unknown): value is AccountType {
  return typeof value === "string" && (ACCOUNT_TYPE_NAMES as readonly string[]).includes(value);
}

/** What the page shows of an account: never a secret. */
export interface AccountDisplay {
  /** The account's name as the service shows it, e.g. "@alice@social.example". */
  name: string;
  /** The account's profile page. */
  url?: string;
  /** Its avatar's URL. */
  photo?: string;
  /** The instance, PDS or endpoint host, e.g. "social.example". */
  instance?: string;
  /** The server software found there when it was connected, e.g. "Pixelfed" or "GoToSocial". */
  software?: string;
}

export interface ConnectedAccount {
  /** The account's own id in the store (stable across reconnects). */
  id: string;
  type: AccountType;
  /** The target uid its syndicator has: what posts name in mp-syndicate-to. */
  uid: string;
  /** The syndicator's options without the secrets, as connecting found them. */
  options: Record<string, unknown>;
  /**
   * Options the owner set on the Accounts page (the thread options, decision 0058): they win over
   * `options`, and a reconnect keeps them.
   */
  settings: Record<string, unknown>;
  display: AccountDisplay;
  /** Each stored secret's field and when it was set; never its value. */
  secretsSetAt: Record<string, Date>;
  /** Set when the service refused the credentials: the account must be connected again. */
  needsReconnect: { reason: string; since: Date } | null;
  connectedAt: Date;
  updatedAt: Date;
}

export interface AccountInput {
  type: AccountType;
  /** The syndicator's options, without secrets. */
  options: Record<string, unknown>;
  display: AccountDisplay;
  /** Field → value; sealed before they are stored. They replace every secret the account had. */
  secrets: Record<string, string>;
}

/**
 * A refusal whose message is for the user (never holding a secret). The page shows it in the
 * reader's language by `key` (a locale key under "accounts.errors.") with `params`, when given.
 */
export class AccountError extends Error {
  constructor(
    message: string,
    /**
     * "managed": the config file defines the target; "invalid": the options or credentials are
     * refused; "confirm": the input looks wrong, and is taken only when the user confirms it.
     */
    readonly code: "managed" | "invalid" | "not_found" | "confirm" = "invalid",
    readonly key?: string,
    readonly params: Record<string, string> = {},
  ) {
    super(message);
    this.name = "AccountError";
  }
}

/** What a connector may do while connecting or disconnecting. */
export interface ConnectContext {
  /** The host's fetch.allowPrivate: instance, PDS and endpoint URLs on private addresses are fetched. */
  allowPrivate: boolean;
  signal: AbortSignal;
}

/** What disconnecting did at the service. */
export interface DisconnectOutcome {
  /** The credentials were revoked at the service. */
  revoked: boolean;
  /** What the user must revoke by hand (a locale key under "accounts.byHand." and its params). */
  byHand?: { key: string; params: Record<string, string> };
}

/**
 * A service's connect and disconnect, as a syndicator class offers it (`static account`): it asks
 * the service whether the credentials are accepted before anything is stored, and says what to keep.
 * Every URL it fetches goes through src/net/safe-fetch.ts under `context.allowPrivate`.
 */
export interface AccountConnector {
  /** The form's fields (trimmed) → the account to save; throws AccountError when refused. */
  connect(
    fields: Readonly<Record<string, string>>,
    context: ConnectContext,
  ): Promise<Omit<AccountInput, "type">>;
  disconnect?(
    account: ConnectedAccount,
    secrets: Readonly<Record<string, string>>,
    context: ConnectContext,
  ): Promise<DisconnectOutcome>;
}

export interface Accounts {
  /** Every connected account, oldest first. */
  list(): Promise<ConnectedAccount[]>;
  get(id: string): Promise<ConnectedAccount | null>;
  /** The account whose syndicator has this uid. */
  byUid(uid: string): Promise<ConnectedAccount | null>;
  /** Adds or replaces (same uid) an account and registers its syndicator at once. */
  save(input: AccountInput): Promise<ConnectedAccount>;
  /**
   * Sets options of the account from the page (merged into its settings) and registers its
   * syndicator built with them at once; other instances pick them up when they sync. Throws an
   * AccountError ("not_found", or "invalid" when the syndicator refuses them).
   */
  saveSettings(id: string, settings: Record<string, unknown>): Promise<ConnectedAccount>;
  /** Unregisters the account's syndicator at once and deletes it with its secrets; null if unknown. */
  remove(id: string): Promise<ConnectedAccount | null>;
  /** The account's secrets, opened. For revoking them; never log or render them. */
  secrets(id: string): Promise<Record<string, string>>;
  /** The service refused the credentials: the page offers Reconnect. Cleared by `save`. */
  markNeedsReconnect(id: string, reason: string): Promise<void>;
  /** Whether a target with this uid comes from the config file (so the page may not change it). */
  isManaged(uid: string): boolean;
  /**
   * Connects from a form: the service's connector checks the credentials (nothing is stored when
   * it refuses them), then `save`. A type without a connector is checked by its syndicator's verify().
   */
  connect(
    type: AccountType,
    fields: Readonly<Record<string, string>>,
    options: { signal: AbortSignal },
  ): Promise<ConnectedAccount>;
  /**
   * Told after each save (a connect or a reconnect) and remove, once the syndicator is registered
   * or gone: the endpoint checks a reconnected target again, so that posts held back by its refused
   * credentials go out by themselves. Returns what stops listening.
   */
  onChange(listener: (change: { kind: "saved" | "removed"; account: ConnectedAccount }) => void): () => void;
  /** Revokes what the service lets us revoke, then `remove`; says what is left for the user. */
  disconnect(
    id: string,
    options: { signal: AbortSignal },
  ): Promise<(DisconnectOutcome & { account: ConnectedAccount }) | null>;
}
