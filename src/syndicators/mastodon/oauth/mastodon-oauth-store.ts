// What the Mastodon connection keeps in the database: the applications possekit registered (one per
// instance, redirect URI and scopes, reused by every later connection; their client id and secret
// sealed) and the pending authorizations (a single-use state bound to the signed-in session, its
// PKCE verifier sealed, for 10 minutes). States are kept by their SHA-256 only, so a database dump
// holds nothing a callback would accept.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Migration, Queryable } from "../../../contract/database.ts";
import type { SecretSealer } from "../../../contract/secret-sealer.ts";
import type { InstanceOAuth, RegisteredApp } from "./mastodon-oauth-client.ts";

const tables = `
CREATE TABLE mastodon_oauth_apps (
  instance text NOT NULL,
  redirect_uri text NOT NULL,
  scopes text NOT NULL,
  client_id_sealed text NOT NULL,
  client_secret_sealed text NOT NULL,
  -- Tells the stored app apart from another (forget only the one the instance refused) without
  -- revealing its id.
  client_fingerprint text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (instance, redirect_uri, scopes)
);
CREATE TABLE mastodon_oauth_states (
  state_hash text PRIMARY KEY,
  session_hash text NOT NULL,
  instance text NOT NULL,
  redirect_uri text NOT NULL,
  -- The instance's OAuth endpoints, scopes and PKCE support as discovered: nothing secret.
  server jsonb NOT NULL,
  verifier_sealed text,
  expires_at timestamptz NOT NULL
);
CREATE INDEX mastodon_oauth_states_expiry ON mastodon_oauth_states (expires_at);
`;

export const mastodonOAuthMigrations: Migration[] = [{ id: "syndicator-mastodon/001-oauth", sql: tables }];

const sha256 = (value: string) => createHash("sha256").update(value).digest("base64url");

export interface AppKey {
  instance: string;
  redirectUri: string;
  scopes: string;
}

export const appKeyOf = (instance: InstanceOAuth, redirectUri: string): AppKey => ({
  instance: instance.origin,
  redirectUri,
  scopes: instance.scopes.join(" "),
});

const what = (key: AppKey, field: string) =>
  `mastodon-app:${key.instance}\n${key.redirectUri}\n${key.scopes}/${field}`;

/** The registered applications, one per (instance, redirect URI, scopes). */
export class MastodonApps {
  constructor(
    private readonly database: Queryable,
    private readonly box: SecretSealer,
  ) {}

  async find(key: AppKey): Promise<RegisteredApp | undefined> {
    const { rows } = await this.database.query<{ client_id_sealed: string; client_secret_sealed: string }>(
      `SELECT client_id_sealed, client_secret_sealed FROM mastodon_oauth_apps
        WHERE instance = $1 AND redirect_uri = $2 AND scopes = $3`,
      [key.instance, key.redirectUri, key.scopes],
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      clientId: this.box.open(row.client_id_sealed, what(key, "clientId")),
      clientSecret: this.box.open(row.client_secret_sealed, what(key, "clientSecret")),
    };
  }

  /**
   * Keeps a newly registered app, unless another connection stored one for the key meanwhile:
   * the app kept is returned, so both connections go on with the same one.
   */
  async keep(key: AppKey, app: RegisteredApp): Promise<RegisteredApp> {
    const inserted = await this.database.query(
      `INSERT INTO mastodon_oauth_apps
         (instance, redirect_uri, scopes, client_id_sealed, client_secret_sealed, client_fingerprint)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
      [
        key.instance,
        key.redirectUri,
        key.scopes,
        this.box.seal(app.clientId, what(key, "clientId")),
        this.box.seal(app.clientSecret, what(key, "clientSecret")),
        sha256(app.clientId),
      ],
    );
    if (inserted.rowCount === 1) return app;
    return (await this.find(key)) ?? app;
  }

  /**
   * Seals every stored client id and secret not under the current key again under it (`possekit
   * rekey`, the server stopped); how many values were.
   */
  async rekey(): Promise<number> {
    const { rows } = await this.database.query<{
      instance: string;
      redirect_uri: string;
      scopes: string;
      client_id_sealed: string;
      client_secret_sealed: string;
    }>(
      "SELECT instance, redirect_uri, scopes, client_id_sealed, client_secret_sealed FROM mastodon_oauth_apps",
    );
    let count = 0;
    const again = (sealed: string, aad: string) => {
      if (this.box.isCurrent(sealed)) return sealed;
      count += 1;
      return this.box.seal(this.box.open(sealed, aad), aad);
    };
    for (const row of rows) {
      const key: AppKey = { instance: row.instance, redirectUri: row.redirect_uri, scopes: row.scopes };
      const clientId = again(row.client_id_sealed, what(key, "clientId"));
      const clientSecret = again(row.client_secret_sealed, what(key, "clientSecret"));
      if (clientId === row.client_id_sealed && clientSecret === row.client_secret_sealed) continue;
      await this.database.query(
        `UPDATE mastodon_oauth_apps SET client_id_sealed = $4, client_secret_sealed = $5
          WHERE instance = $1 AND redirect_uri = $2 AND scopes = $3`,
        [key.instance, key.redirectUri, key.scopes, clientId, clientSecret],
      );
    }
    return count;
  }

  /** Forgets the app the instance no longer knows (and only that one, not a newer one). */
  async forget(key: AppKey, app: RegisteredApp): Promise<void> {
    await this.database.query(
      `DELETE FROM mastodon_oauth_apps
        WHERE instance = $1 AND redirect_uri = $2 AND scopes = $3 AND client_fingerprint = $4`,
      [key.instance, key.redirectUri, key.scopes, sha256(app.clientId)],
    );
  }
}

/** An authorization under way, as the callback finds it. */
export interface PendingConnection {
  instance: InstanceOAuth;
  redirectUri: string;
  codeVerifier?: string;
}

export type TakenState =
  | { ok: true; pending: PendingConnection }
  | { ok: false; why: "unknown" | "expired" | "another-session" };

/** How long the owner has to authorize on the instance: the state's life. */
export const STATE_LIFETIME_MS = 10 * 60 * 1000;

/** The single-use states of authorizations under way, each bound to the session that began it. */
export class MastodonConnectStates {
  constructor(
    private readonly database: Queryable,
    private readonly box: SecretSealer,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new state for this session's authorization; the verifier is sealed under the state. */
  async create(sessionId: string, pending: PendingConnection): Promise<string> {
    const state = randomBytes(32).toString("base64url");
    const stateHash = sha256(state);
    const now = this.now();
    await this.database.query("DELETE FROM mastodon_oauth_states WHERE expires_at <= $1", [new Date(now)]);
    await this.database.query(
      `INSERT INTO mastodon_oauth_states
         (state_hash, session_hash, instance, redirect_uri, server, verifier_sealed, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        stateHash,
        sha256(`session:${sessionId}`),
        pending.instance.origin,
        pending.redirectUri,
        JSON.stringify(pending.instance),
        pending.codeVerifier ? this.box.seal(pending.codeVerifier, `mastodon-state:${stateHash}`) : null,
        new Date(now + STATE_LIFETIME_MS),
      ],
    );
    return state;
  }

  /**
   * Takes the state: whatever the outcome it is gone, so a replay, an expired state or a state
   * tried from another session never works, then or later.
   */
  async take(state: string, sessionId: string): Promise<TakenState> {
    if (!state || state.length > 200) return { ok: false, why: "unknown" };
    const stateHash = sha256(state);
    const { rows } = await this.database.query<{
      session_hash: string;
      redirect_uri: string;
      server: InstanceOAuth | string;
      verifier_sealed: string | null;
      expires_at: Date | string;
    }>(
      `DELETE FROM mastodon_oauth_states WHERE state_hash = $1
        RETURNING session_hash, redirect_uri, server, verifier_sealed, expires_at`,
      [stateHash],
    );
    const row = rows[0];
    if (!row) return { ok: false, why: "unknown" };
    if (new Date(row.expires_at).getTime() <= this.now()) return { ok: false, why: "expired" };
    const session = Buffer.from(sha256(`session:${sessionId}`));
    const bound = Buffer.from(row.session_hash);
    if (bound.length !== session.length || !timingSafeEqual(bound, session))
      return { ok: false, why: "another-session" };
    const instance = (typeof row.server === "string" ? JSON.parse(row.server) : row.server) as InstanceOAuth;
    return {
      ok: true,
      pending: {
        instance,
        redirectUri: row.redirect_uri,
        ...(row.verifier_sealed
          ? { codeVerifier: this.box.open(row.verifier_sealed, `mastodon-state:${stateHash}`) }
          : {}),
      },
    };
  }
}
