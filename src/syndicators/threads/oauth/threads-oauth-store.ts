// What the Threads connection keeps in the database: the owner's Meta app (its Threads app id and
// secret, asked once on the Accounts page, both sealed and never shown again) and the pending
// authorizations (a single-use state bound to the signed-in session, for 10 minutes, kept by its
// SHA-256 only so a database dump holds nothing a callback would accept).
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Migration, Queryable } from "../../../contract/database.ts";
import type { SecretSealer } from "../../../contract/secret-sealer.ts";
import { threadsTokenMigrations } from "../threads-tokens.ts";

export const threadsOAuthMigrations: Migration[] = [
  ...threadsTokenMigrations,
  {
    id: "syndicator-threads/002-oauth",
    sql: `CREATE TABLE threads_oauth_app (
  id integer PRIMARY KEY CHECK (id = 1),
  app_id_sealed text NOT NULL,
  app_secret_sealed text NOT NULL,
  set_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE threads_oauth_states (
  state_hash text PRIMARY KEY,
  session_hash text NOT NULL,
  expires_at timestamptz NOT NULL
);`,
  },
];

export interface MetaApp {
  appId: string;
  appSecret: string;
}

const sha256 = (value: string) => createHash("sha256").update(value).digest("base64url");

/** The owner's one Meta app. */
export class ThreadsApps {
  constructor(
    private readonly database: Queryable,
    private readonly box: SecretSealer,
  ) {}

  async find(): Promise<(MetaApp & { setAt: Date }) | undefined> {
    const { rows } = await this.database.query<{
      app_id_sealed: string;
      app_secret_sealed: string;
      set_at: Date | string;
    }>("SELECT app_id_sealed, app_secret_sealed, set_at FROM threads_oauth_app WHERE id = 1");
    const row = rows[0];
    if (!row) return undefined;
    return {
      appId: this.box.open(row.app_id_sealed, "threads-app/appId"),
      appSecret: this.box.open(row.app_secret_sealed, "threads-app/appSecret"),
      setAt: new Date(row.set_at),
    };
  }

  async keep(app: MetaApp): Promise<void> {
    await this.database.query(
      `INSERT INTO threads_oauth_app (id, app_id_sealed, app_secret_sealed, set_at) VALUES (1, $1, $2, now())
       ON CONFLICT (id) DO UPDATE SET app_id_sealed = $1, app_secret_sealed = $2, set_at = now()`,
      [this.box.seal(app.appId, "threads-app/appId"), this.box.seal(app.appSecret, "threads-app/appSecret")],
    );
  }

  /** Seals the app's id and secret again under the current key (`possekit rekey`); how many. */
  async rekey(): Promise<number> {
    const app = await this.find();
    const { rows } = await this.database.query<{ app_id_sealed: string; app_secret_sealed: string }>(
      "SELECT app_id_sealed, app_secret_sealed FROM threads_oauth_app WHERE id = 1",
    );
    const row = rows[0];
    if (!app || !row || (this.box.isCurrent(row.app_id_sealed) && this.box.isCurrent(row.app_secret_sealed)))
      return 0;
    await this.keep(app);
    return 2;
  }
}

/** How long the owner has to authorize on Threads. */
export const STATE_LIFETIME_MS = 10 * 60 * 1000;

export class ThreadsConnectStates {
  constructor(
    private readonly database: Queryable,
    private readonly now: () => number,
  ) {}

  async create(sessionId: string): Promise<string> {
    const state = randomBytes(32).toString("base64url");
    const now = this.now();
    await this.database.query("DELETE FROM threads_oauth_states WHERE expires_at <= $1", [new Date(now)]);
    await this.database.query(
      "INSERT INTO threads_oauth_states (state_hash, session_hash, expires_at) VALUES ($1, $2, $3)",
      [sha256(state), sha256(`session:${sessionId}`), new Date(now + STATE_LIFETIME_MS)],
    );
    return state;
  }

  /** Takes the state: gone whatever the outcome, so a replay never works. */
  async take(state: string, sessionId: string): Promise<boolean> {
    if (!state || state.length > 200) return false;
    const { rows } = await this.database.query<{ session_hash: string; expires_at: Date | string }>(
      "DELETE FROM threads_oauth_states WHERE state_hash = $1 RETURNING session_hash, expires_at",
      [sha256(state)],
    );
    const row = rows[0];
    if (!row || new Date(row.expires_at).getTime() <= this.now()) return false;
    const session = Buffer.from(sha256(`session:${sessionId}`));
    const bound = Buffer.from(row.session_hash);
    return bound.length === session.length && timingSafeEqual(bound, session);
  }
}
