// Keeping a Threads token alive with nobody watching. A long-lived token lasts 60 days and "can be
// refreshed as long as [it is] at least 24 hours old but [has] not expired"
// (developers.facebook.com/docs/threads/get-started/long-lived-tokens): each use of the account,
// and the scheduler's check (maintainCredentials), refreshes it once it is a day old. A refresh that
// fails leaves the old token in use (it is still valid) and is tried again an hour later; when the
// token is within 7 days of its end and still not refreshed, the owner is warned.
//
// The current token lives in a store of its own: sealed in the database (threads_tokens) when the
// server has one, else in memory. The store remembers which configured token it grew from (its
// SHA-256), so a reconnect or a new token in the config file starts it afresh.
import { createHash } from "node:crypto";
import type { Migration, Queryable } from "../../contract/database.ts";
import type { SecretSealer } from "../../contract/secret-sealer.ts";

export const DAY_MS = 86_400_000;
export const LONG_LIVED_MS = 60 * DAY_MS;
/** A token this old may be refreshed. */
export const REFRESH_AGE_MS = DAY_MS;
/** After a failed refresh, the next try waits this long. */
export const REFRESH_RETRY_MS = 3_600_000;
/** The owner is warned when an unrefreshed token has less than this left. */
export const EXPIRY_WARNING_MS = 7 * DAY_MS;

export interface StoredToken {
  /** SHA-256 of the configured token this one grew from. */
  seed: string;
  token: string;
  refreshedAt: number;
  expiresAt: number;
  refreshError: string | null;
  refreshFailedAt: number | null;
}

export interface ThreadsTokenStore {
  get(userId: string): Promise<StoredToken | undefined>;
  put(userId: string, stored: StoredToken): Promise<void>;
}

export const threadsTokenMigrations: Migration[] = [
  {
    id: "syndicator-threads/001-tokens",
    sql: `CREATE TABLE threads_tokens (
  user_id text PRIMARY KEY,
  seed text NOT NULL,
  token_sealed text NOT NULL,
  refreshed_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  refresh_error text,
  refresh_failed_at timestamptz
);`,
  },
];

export const fingerprint = (token: string) => createHash("sha256").update(token).digest("base64url");

export class MemoryTokenStore implements ThreadsTokenStore {
  readonly #rows = new Map<string, StoredToken>();
  async get(userId: string) {
    return this.#rows.get(userId);
  }
  async put(userId: string, stored: StoredToken) {
    this.#rows.set(userId, { ...stored });
  }
}

/**
 * The database's store where its table exists (the endpoint adds it with the Threads flow), else
 * memory: a host that runs the syndicator without the flow (Indiekit) still posts, and refreshes.
 */
export class TableOrMemoryStore implements ThreadsTokenStore {
  #chosen: ThreadsTokenStore | undefined;
  constructor(private readonly table: DatabaseTokenStore) {}

  async #store(): Promise<ThreadsTokenStore> {
    if (!this.#chosen) this.#chosen = (await this.table.exists()) ? this.table : new MemoryTokenStore();
    return this.#chosen;
  }
  async get(userId: string) {
    return (await this.#store()).get(userId);
  }
  async put(userId: string, stored: StoredToken) {
    return (await this.#store()).put(userId, stored);
  }
}

const aad = (userId: string) => `threads-token:${userId}`;
const time = (value: Date | string | null) => (value === null ? null : new Date(value).getTime());

export class DatabaseTokenStore implements ThreadsTokenStore {
  constructor(
    private readonly database: Queryable,
    private readonly box: SecretSealer,
  ) {}

  async exists(): Promise<boolean> {
    const { rows } = await this.database.query<{ found: string | null }>(
      "SELECT to_regclass('threads_tokens')::text AS found",
    );
    return rows[0]?.found != null;
  }

  async get(userId: string): Promise<StoredToken | undefined> {
    const { rows } = await this.database.query<{
      seed: string;
      token_sealed: string;
      refreshed_at: Date | string;
      expires_at: Date | string;
      refresh_error: string | null;
      refresh_failed_at: Date | string | null;
    }>("SELECT * FROM threads_tokens WHERE user_id = $1", [userId]);
    const row = rows[0];
    if (!row) return undefined;
    return {
      seed: row.seed,
      token: this.box.open(row.token_sealed, aad(userId)),
      refreshedAt: time(row.refreshed_at) ?? 0,
      expiresAt: time(row.expires_at) ?? 0,
      refreshError: row.refresh_error,
      refreshFailedAt: time(row.refresh_failed_at),
    };
  }

  async put(userId: string, stored: StoredToken): Promise<void> {
    await this.database.query(
      `INSERT INTO threads_tokens (user_id, seed, token_sealed, refreshed_at, expires_at, refresh_error, refresh_failed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (user_id) DO UPDATE SET seed = $2, token_sealed = $3, refreshed_at = $4, expires_at = $5,
         refresh_error = $6, refresh_failed_at = $7`,
      [
        userId,
        stored.seed,
        this.box.seal(stored.token, aad(userId)),
        new Date(stored.refreshedAt),
        new Date(stored.expiresAt),
        stored.refreshError,
        stored.refreshFailedAt === null ? null : new Date(stored.refreshFailedAt),
      ],
    );
  }

  /** Seals every token not under the current key again under it (`possekit rekey`). */
  async rekey(): Promise<number> {
    const { rows } = await this.database.query<{ user_id: string; token_sealed: string }>(
      "SELECT user_id, token_sealed FROM threads_tokens",
    );
    let count = 0;
    for (const row of rows) {
      if (this.box.isCurrent(row.token_sealed)) continue;
      const again = this.box.seal(this.box.open(row.token_sealed, aad(row.user_id)), aad(row.user_id));
      await this.database.query("UPDATE threads_tokens SET token_sealed = $2 WHERE user_id = $1", [
        row.user_id,
        again,
      ]);
      count += 1;
    }
    return count;
  }
}

/** What the owner is told when a token nears its end unrefreshed. */
export interface CredentialExpiry {
  expiresAt: Date;
  error: string;
}

export class ThreadsTokenKeeper {
  constructor(
    private readonly userId: string,
    /** The configured token, and when it was obtained (unknown: taken as now). */
    private readonly configured: { token: string; issuedAt?: number },
    private readonly store: () => ThreadsTokenStore,
    private readonly refresh: (token: string) => Promise<{ accessToken: string; expiresInSeconds: number }>,
    private readonly now: () => number,
  ) {}

  async #current(): Promise<StoredToken> {
    const seed = fingerprint(this.configured.token);
    const stored = await this.store().get(this.userId);
    if (stored && stored.seed === seed) return stored;
    const issuedAt = Math.min(this.configured.issuedAt ?? this.now(), this.now());
    const fresh: StoredToken = {
      seed,
      token: this.configured.token,
      refreshedAt: issuedAt,
      expiresAt: issuedAt + LONG_LIVED_MS,
      refreshError: null,
      refreshFailedAt: null,
    };
    await this.store().put(this.userId, fresh);
    return fresh;
  }

  /** The token to use now, refreshed first when it is at least a day old. */
  async token(): Promise<string> {
    const current = await this.#current();
    const now = this.now();
    const due = now - current.refreshedAt >= REFRESH_AGE_MS && now < current.expiresAt;
    const waiting = current.refreshFailedAt !== null && now - current.refreshFailedAt < REFRESH_RETRY_MS;
    if (!due || waiting) return current.token;
    try {
      const fresh = await this.refresh(current.token);
      await this.store().put(this.userId, {
        seed: current.seed,
        token: fresh.accessToken,
        refreshedAt: now,
        expiresAt: now + fresh.expiresInSeconds * 1000,
        refreshError: null,
        refreshFailedAt: null,
      });
      return fresh.accessToken;
    } catch (error) {
      await this.store().put(this.userId, {
        ...current,
        refreshError: error instanceof Error ? error.message : String(error),
        refreshFailedAt: now,
      });
      return current.token;
    }
  }

  /** The warning due now: the token ends within 7 days and its last refresh failed. */
  async expiry(): Promise<CredentialExpiry | undefined> {
    const current = await this.#current();
    if (current.refreshError === null) return undefined;
    if (current.expiresAt - this.now() > EXPIRY_WARNING_MS) return undefined;
    return { expiresAt: new Date(current.expiresAt), error: current.refreshError };
  }
}
