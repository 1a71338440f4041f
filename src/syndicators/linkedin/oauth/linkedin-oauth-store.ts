// What the LinkedIn connection keeps in the database: the owner's developer app (its client id and
// secret, entered once on the Accounts page, sealed and never shown again) and the authorizations
// under way (a single-use state bound to the signed-in session, for 10 minutes, kept by its SHA-256
// only, so a database dump holds nothing a callback would accept).
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Migration, Queryable } from "../../../contract/database.ts";
import type { SecretSealer } from "../../../contract/secret-sealer.ts";

const tables = `
CREATE TABLE linkedin_oauth_app (
  -- One app: the owner's own, from LinkedIn's developer portal.
  only_one boolean PRIMARY KEY DEFAULT true CHECK (only_one),
  client_id_sealed text NOT NULL,
  client_secret_sealed text NOT NULL,
  set_at timestamptz NOT NULL
);
CREATE TABLE linkedin_oauth_states (
  state_hash text PRIMARY KEY,
  session_hash text NOT NULL,
  redirect_uri text NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX linkedin_oauth_states_expiry ON linkedin_oauth_states (expires_at);
`;

export const linkedinOAuthMigrations: Migration[] = [{ id: "syndicator-linkedin/001-oauth", sql: tables }];

const sha256 = (value: string) => createHash("sha256").update(value).digest("base64url");

export interface LinkedinApp {
  clientId: string;
  clientSecret: string;
}

const aad = (field: string) => `linkedin-app/${field}`;

/** The owner's developer app. */
export class LinkedinApps {
  constructor(
    private readonly database: Queryable,
    private readonly box: SecretSealer,
  ) {}

  async find(): Promise<LinkedinApp | undefined> {
    const { rows } = await this.database.query<{ client_id_sealed: string; client_secret_sealed: string }>(
      "SELECT client_id_sealed, client_secret_sealed FROM linkedin_oauth_app",
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      clientId: this.box.open(row.client_id_sealed, aad("clientId")),
      clientSecret: this.box.open(row.client_secret_sealed, aad("clientSecret")),
    };
  }

  /** When the app was entered, without opening it: what the page shows. */
  async setAt(): Promise<Date | undefined> {
    const { rows } = await this.database.query<{ set_at: Date | string }>(
      "SELECT set_at FROM linkedin_oauth_app",
    );
    return rows[0] ? new Date(rows[0].set_at) : undefined;
  }

  async keep(app: LinkedinApp, at: Date): Promise<void> {
    await this.database.query(
      `INSERT INTO linkedin_oauth_app (only_one, client_id_sealed, client_secret_sealed, set_at)
       VALUES (true, $1, $2, $3)
       ON CONFLICT (only_one) DO UPDATE SET client_id_sealed = $1, client_secret_sealed = $2, set_at = $3`,
      [
        this.box.seal(app.clientId, aad("clientId")),
        this.box.seal(app.clientSecret, aad("clientSecret")),
        at,
      ],
    );
  }

  /** Seals the app again under the current key (`possekit rekey`); how many values were. */
  async rekey(): Promise<number> {
    const { rows } = await this.database.query<{ client_id_sealed: string; client_secret_sealed: string }>(
      "SELECT client_id_sealed, client_secret_sealed FROM linkedin_oauth_app",
    );
    const row = rows[0];
    if (!row) return 0;
    let count = 0;
    const again = (sealed: string, field: string) => {
      if (this.box.isCurrent(sealed)) return sealed;
      count += 1;
      return this.box.seal(this.box.open(sealed, aad(field)), aad(field));
    };
    const id = again(row.client_id_sealed, "clientId");
    const secret = again(row.client_secret_sealed, "clientSecret");
    if (count > 0)
      await this.database.query(
        "UPDATE linkedin_oauth_app SET client_id_sealed = $1, client_secret_sealed = $2",
        [id, secret],
      );
    return count;
  }
}

/** How long the owner has to allow on LinkedIn: the state's life. */
export const STATE_LIFETIME_MS = 10 * 60 * 1000;

/** The single-use states of authorizations under way, each bound to the session that began it. */
export class LinkedinConnectStates {
  constructor(
    private readonly database: Queryable,
    private readonly now: () => number,
  ) {}

  async create(sessionId: string, redirectUri: string): Promise<string> {
    const state = randomBytes(32).toString("base64url");
    const now = this.now();
    await this.database.query("DELETE FROM linkedin_oauth_states WHERE expires_at <= $1", [new Date(now)]);
    await this.database.query(
      "INSERT INTO linkedin_oauth_states (state_hash, session_hash, redirect_uri, expires_at) VALUES ($1, $2, $3, $4)",
      [sha256(state), sha256(`session:${sessionId}`), redirectUri, new Date(now + STATE_LIFETIME_MS)],
    );
    return state;
  }

  /** Takes the state: gone whatever the outcome, so a replay never works. The redirect URI, or undefined. */
  async take(state: string, sessionId: string): Promise<string | undefined> {
    if (!state || state.length > 200) return undefined;
    const { rows } = await this.database.query<{
      session_hash: string;
      redirect_uri: string;
      expires_at: Date | string;
    }>(
      "DELETE FROM linkedin_oauth_states WHERE state_hash = $1 RETURNING session_hash, redirect_uri, expires_at",
      [sha256(state)],
    );
    const row = rows[0];
    if (!row || new Date(row.expires_at).getTime() <= this.now()) return undefined;
    const session = Buffer.from(sha256(`session:${sessionId}`));
    const bound = Buffer.from(row.session_hash);
    if (bound.length !== session.length || !timingSafeEqual(bound, session)) return undefined;
    return row.redirect_uri;
  }
}
