// The connected accounts as live syndicators (the `Accounts` port of src/contract/accounts.ts): at
// start each stored account becomes a syndicator registered with the host, and a save or a remove
// registers or unregisters one at once, so every reader of `server.syndicators` (q=syndicate-to, the
// page, the scheduler, the feeds) sees the change without a restart. The config file wins: an account
// whose uid a configured target has is refused on save and left unregistered at start.
import {
  ACCOUNT_TYPES,
  type AccountConnector,
  AccountError,
  type AccountInput,
  type Accounts,
  type AccountType,
  type ConnectedAccount,
  type DisconnectOutcome,
} from "../../contract/accounts.ts";
import { Listeners } from "../../contract/listeners.ts";
import type { Logger } from "../../contract/logger.ts";
import { OptionsError } from "../../contract/options/options-error.ts";
import type { Server, SyndicatorPlugin } from "../../contract/plugin.ts";
import type { PluginClass } from "../plugins.ts";
import type { AccountStore } from "./account-store.ts";

/** What the page names as the place to fix an account's credentials. */
export const ACCOUNTS_PAGE_SETTING = "the account on the Accounts page (Reconnect)";

/**
 * How the mark of an account that could not be registered begins. Such a mark ends when the account
 * registers again: its secrets open once ACCOUNT_SECRETS_KEY is given back, with no reconnect. A mark
 * for credentials the service refused stays until the account is reconnected.
 */
export const NOT_REGISTERED = "Not in use: ";

/** The host as the accounts need it: its list of syndicators, and registering one. */
export interface SyndicatorRegistry {
  readonly syndicators: readonly SyndicatorPlugin[];
  removeSyndicator(uid: string): boolean;
  /** The server a syndicator joins in its init() (which calls addSyndicator). */
  readonly server: Server;
}

export class ConnectedAccounts implements Accounts {
  /** Account id → its registered syndicator. */
  readonly #registered = new Map<string, SyndicatorPlugin>();
  /** Serialises saves and removes: a registration follows the row it was made from. */
  #queue: Promise<unknown> = Promise.resolve();
  /** Account id → what its syndicator was built from (options and when each secret was set). */
  readonly #fingerprints = new Map<string, string>();
  /** Account id → the last problem logged for it, so that a sync logs each problem once. */
  readonly #warned = new Map<string, string>();
  readonly #listeners = new Listeners<{ kind: "saved" | "removed"; account: ConnectedAccount }>((error) =>
    this.logger.error("A listener of connected accounts failed", { error: (error as Error).message }),
  );

  constructor(
    private readonly store: AccountStore,
    private readonly registry: SyndicatorRegistry,
    /** The syndicator class of a package (the host's built-in plug-ins). */
    private readonly classOf: (packageName: string) => Promise<PluginClass | undefined>,
    private readonly logger: Logger,
    /** The host's fetch.allowPrivate, for the connectors' fetches. */
    private readonly allowPrivate = false,
  ) {}

  /** Registers every stored account; one that cannot be is logged (without its secrets) and skipped. */
  start(): Promise<void> {
    return this.sync();
  }

  /**
   * Makes the registered syndicators those of the stored accounts now: another instance sharing the
   * database (PostgreSQL) may have connected, reconnected or removed one. The host calls it now and
   * then; an account whose options and secrets did not change is left as it is.
   */
  sync(): Promise<void> {
    return this.#serially(async () => {
      const accounts = await this.store.list();
      const stored = new Set(accounts.map((account) => account.id));
      for (const id of this.#registered.keys()) if (!stored.has(id)) this.#unregister(id);
      for (const account of accounts) {
        const fingerprint = fingerprintOf(account);
        if (this.#registered.has(account.id) && this.#fingerprints.get(account.id) === fingerprint) continue;
        this.#unregister(account.id);
        if (this.isManaged(account.uid)) {
          this.#warnOnce(
            account.id,
            `Connected account ${account.uid} is not used: the configuration file defines a target with that uid, and it wins`,
          );
          continue;
        }
        try {
          const syndicator = await this.#build(
            account.type,
            optionsOf(account),
            await this.store.secrets(account.id),
          );
          this.#register(account.id, syndicator);
          this.#fingerprints.set(account.id, fingerprint);
          if (account.needsReconnect?.reason.startsWith(NOT_REGISTERED))
            await this.store.clearNeedsReconnect(account.id);
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          this.#warnOnce(account.id, `Connected account ${account.uid} could not be registered: ${reason}`);
          if (!account.needsReconnect)
            await this.store.markNeedsReconnect(account.id, `${NOT_REGISTERED}${reason}`);
        }
      }
    });
  }

  #warnOnce(id: string, line: string): void {
    if (this.#warned.get(id) === line) return;
    this.#warned.set(id, line);
    this.logger.warn(line);
  }

  /** Seals every secret not under the current key again under it; how many were. */
  rekey(): Promise<number> {
    return this.#serially(() => this.store.rekey());
  }

  /** The id of the key new secrets are sealed with. */
  get currentKeyId(): string {
    return this.store.currentKeyId;
  }

  list(): Promise<ConnectedAccount[]> {
    return this.store.list();
  }

  get(id: string): Promise<ConnectedAccount | null> {
    return this.store.get(id);
  }

  byUid(uid: string): Promise<ConnectedAccount | null> {
    return this.store.byUid(uid);
  }

  secrets(id: string): Promise<Record<string, string>> {
    return this.store.secrets(id);
  }

  async markNeedsReconnect(id: string, reason: string): Promise<void> {
    await this.store.markNeedsReconnect(id, reason);
  }

  /** A target the page did not connect: from the config file, the environment or another plug-in. */
  isManaged(uid: string): boolean {
    const ours = new Set([...this.#registered.values()]);
    return this.registry.syndicators.some(
      (syndicator) => syndicator.info.uid === uid && !ours.has(syndicator),
    );
  }

  /** Whether the registered syndicator with this uid is a connected account's. */
  isConnected(uid: string): boolean {
    return [...this.#registered.values()].some((syndicator) => syndicator.info.uid === uid);
  }

  save(input: AccountInput): Promise<ConnectedAccount> {
    return this.#serially(async () => {
      const built = await this.#build(input.type, input.options, input.secrets);
      const uid = built.info.uid;
      if (this.isManaged(uid))
        throw new AccountError(
          `${uid} is defined in the configuration file, which wins: change it there, or remove it there to connect it here`,
          "managed",
        );
      const account = await this.store.save(input, uid);
      // A reconnect keeps what the owner set on the page.
      const syndicator =
        Object.keys(account.settings).length === 0
          ? built
          : await this.#build(account.type, optionsOf(account), input.secrets);
      this.#unregister(account.id);
      this.#register(account.id, syndicator);
      this.#fingerprints.set(account.id, fingerprintOf(account));
      this.#tell("saved", account);
      return account;
    });
  }

  saveSettings(id: string, settings: Record<string, unknown>): Promise<ConnectedAccount> {
    return this.#serially(async () => {
      const account = await this.store.get(id);
      if (!account) throw new AccountError(`No connected account has the id ${id}`, "not_found");
      const merged = { ...account.settings, ...settings };
      // Built before it is stored: settings the syndicator refuses are never saved.
      const syndicator = await this.#build(
        account.type,
        { ...account.options, ...merged },
        await this.store.secrets(id),
      );
      const saved = await this.store.saveSettings(id, merged);
      if (!saved) throw new AccountError(`No connected account has the id ${id}`, "not_found");
      this.#unregister(id);
      this.#register(id, syndicator);
      this.#fingerprints.set(id, fingerprintOf(saved));
      return saved;
    });
  }

  remove(id: string): Promise<ConnectedAccount | null> {
    return this.#serially(async () => {
      const removed = await this.store.remove(id);
      this.#unregister(id);
      if (removed) this.#tell("removed", removed);
      return removed;
    });
  }

  onChange(listener: (change: { kind: "saved" | "removed"; account: ConnectedAccount }) => void): () => void {
    return this.#listeners.add(listener);
  }

  #tell(kind: "saved" | "removed", account: ConnectedAccount): void {
    this.#listeners.tell({ kind, account });
  }

  async connect(
    type: AccountType,
    fields: Readonly<Record<string, string>>,
    { signal }: { signal: AbortSignal },
  ): Promise<ConnectedAccount> {
    const connector = await this.#connectorOf(type);
    if (connector) {
      const found = await connector.connect(fields, { allowPrivate: this.allowPrivate, signal });
      return this.save({ type, ...found });
    }
    // No connector: the fields are the syndicator's options, and its verify() is the check.
    const { optionSecrets } = ACCOUNT_TYPES[type];
    const secrets = Object.fromEntries(
      Object.entries(fields).filter(([field]) => optionSecrets.includes(field)),
    );
    const options = Object.fromEntries(
      Object.entries(fields).filter(([field]) => !optionSecrets.includes(field)),
    );
    const syndicator = await this.#build(type, options, secrets);
    try {
      await syndicator.verify?.({ signal });
    } catch (error) {
      const status = (error as { status?: unknown }).status;
      throw new AccountError(
        `${syndicator.info.name} refused the credentials${typeof status === "number" ? ` (${status})` : ""}`,
        "invalid",
        "refused",
        { service: syndicator.info.name },
      );
    }
    return this.save({ type, options, display: { name: syndicator.info.name }, secrets });
  }

  async disconnect(
    id: string,
    { signal }: { signal: AbortSignal },
  ): Promise<(DisconnectOutcome & { account: ConnectedAccount }) | null> {
    const account = await this.store.get(id);
    if (!account) return null;
    const connector = await this.#connectorOf(account.type);
    let outcome: DisconnectOutcome = { revoked: false };
    if (connector?.disconnect) {
      try {
        const secrets = await this.store.secrets(id);
        outcome = await connector.disconnect(account, secrets, { allowPrivate: this.allowPrivate, signal });
      } catch (error) {
        // Revoking is a courtesy to the service: the account is disconnected here whatever it answers.
        this.logger.warn(`Could not revoke the credentials of ${account.uid} at the service`, {
          error: error instanceof AccountError ? error.message : (error as Error).name,
        });
        outcome = { revoked: false };
      }
    }
    const removed = await this.remove(id);
    return removed ? { ...outcome, account: removed } : null;
  }

  async #connectorOf(type: AccountType): Promise<AccountConnector | undefined> {
    const Syndicator = await this.classOf(ACCOUNT_TYPES[type].packageName);
    return (Syndicator as unknown as { account?: AccountConnector } | undefined)?.account;
  }

  async #build(
    type: AccountType,
    options: Record<string, unknown>,
    secrets: Record<string, string>,
  ): Promise<SyndicatorPlugin> {
    const { packageName, optionSecrets } = ACCOUNT_TYPES[type];
    const Syndicator = await this.classOf(packageName);
    if (!Syndicator) throw new AccountError(`${packageName} is not installed in this server`, "invalid");
    const given = Object.fromEntries(
      optionSecrets.filter((field) => secrets[field] !== undefined).map((field) => [field, secrets[field]]),
    );
    let plugin: SyndicatorPlugin;
    try {
      plugin = new Syndicator({ ...options, ...given }) as SyndicatorPlugin;
    } catch (error) {
      // Zod's messages name the option and what it must be, never the value given.
      if (error instanceof OptionsError) throw new AccountError(error.linesFor(type).join("; "), "invalid");
      throw new AccountError(`${type}: ${(error as Error).message.split("\n")[0]}`, "invalid");
    }
    if (typeof plugin.syndicate !== "function" || typeof plugin.info?.uid !== "string")
      throw new AccountError(`${packageName} is not a syndicator`, "invalid");
    // Refused credentials are fixed on the page, not in a file or the environment.
    Object.defineProperty(plugin, "credentialSetting", { value: ACCOUNTS_PAGE_SETTING, configurable: true });
    // So is its server's address: the account's, not an option of the config file.
    Object.defineProperty(plugin, "addressSetting", { value: ACCOUNTS_PAGE_SETTING, configurable: true });
    // Its posts wait for a reconnect rather than fail: reconnecting is the whole fix.
    Object.defineProperty(plugin, "holdWhileRefused", { value: true, configurable: true });
    return plugin;
  }

  #register(accountId: string, syndicator: SyndicatorPlugin): void {
    const before = this.registry.syndicators.length;
    // The syndicator's init() joins the host as a configured one does (addSyndicator, fetch rules).
    const joined = syndicator.init(this.registry.server);
    if (joined instanceof Promise) throw new Error(`${syndicator.id}: init() must not be asynchronous here`);
    if (this.registry.syndicators.length === before) this.registry.server.addSyndicator(syndicator);
    this.#registered.set(accountId, syndicator);
  }

  #unregister(accountId: string): void {
    const syndicator = this.#registered.get(accountId);
    this.#fingerprints.delete(accountId);
    if (!syndicator) return;
    this.#registered.delete(accountId);
    this.registry.removeSyndicator(syndicator.info.uid);
  }

  #serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(work, work);
    this.#queue = next.catch(() => undefined);
    return next;
  }
}

/** The options an account's syndicator is built with: what connecting found, and the page's settings. */
function optionsOf(account: ConnectedAccount): Record<string, unknown> {
  return { ...account.options, ...account.settings };
}

/** What an account's syndicator is built from: a change of any means building it again. */
function fingerprintOf(account: ConnectedAccount): string {
  const setAt = Object.entries(account.secretsSetAt).map(([field, at]) => [field, at.getTime()]);
  return JSON.stringify([account.type, account.options, account.settings, setAt]);
}
