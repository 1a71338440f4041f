// Authorization codes and refresh tokens. Both are random secrets handed to a client once; only
// their SHA-256 is kept, so a copy of the database yields neither. A code lives ten minutes at most
// and is spent by its first redemption; a refresh token is spent by its first use and replaced.
// Presenting a spent one again means it was copied: the whole grant (every token that came from the
// same consent) is revoked.
import { createHash, randomBytes } from "node:crypto";
import type { Database, Migration } from "../../contract/database.ts";

export const CODE_LIFETIME_MS = 10 * 60_000;

export const indieauthMigrations: Migration[] = [
  {
    id: "host/005-indieauth-grants",
    sql: `CREATE TABLE indieauth_codes (
      code_hash text PRIMARY KEY,
      grant_id text NOT NULL,
      client_id text NOT NULL,
      redirect_uri text NOT NULL,
      code_challenge text NOT NULL,
      scope text NOT NULL,
      me text NOT NULL,
      expires_at timestamptz NOT NULL,
      used_at timestamptz
    );
    CREATE INDEX indieauth_codes_expires_at ON indieauth_codes (expires_at);
    CREATE TABLE indieauth_refresh_tokens (
      token_hash text PRIMARY KEY,
      grant_id text NOT NULL,
      client_id text NOT NULL,
      scope text NOT NULL,
      access_token_id text NOT NULL,
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      revoked_at timestamptz
    );
    CREATE INDEX indieauth_refresh_tokens_grant ON indieauth_refresh_tokens (grant_id);
    CREATE INDEX indieauth_refresh_tokens_access ON indieauth_refresh_tokens (access_token_id);
    CREATE INDEX indieauth_refresh_tokens_expires_at ON indieauth_refresh_tokens (expires_at);`,
  },
  {
    // The access tokens issued before host/006 learn their grant, and that it lives as long as its
    // refresh token (token-registry.ts).
    id: "host/007-access-tokens-of-indieauth-grants",
    sql: `UPDATE access_tokens SET grant_id = r.grant_id, keep_until = GREATEST(access_tokens.keep_until, r.expires_at)
      FROM indieauth_refresh_tokens r WHERE r.access_token_id = access_tokens.id;
    UPDATE access_tokens SET revoked_at = coalesce(access_tokens.revoked_at, r.revoked_at)
      FROM indieauth_refresh_tokens r WHERE r.access_token_id = access_tokens.id AND r.revoked_at IS NOT NULL;`,
  },
];

export interface CodeGrant {
  grantId: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scope: string[];
  me: string;
  expiresAt: Date;
}

export interface RefreshGrant {
  grantId: string;
  clientId: string;
  scope: string[];
  accessTokenId: string;
  expiresAt: Date;
}

export type Redemption<T> =
  | { kind: "ok"; grant: T }
  | { kind: "unknown" }
  /** Spent before: the grant's tokens are to be revoked. */
  | { kind: "reused"; grantId: string };

export interface GrantStore {
  /** Stores a new code and answers it (the only time it exists in clear). */
  issueCode(grant: Omit<CodeGrant, "expiresAt">): Promise<string>;
  /** Spends a code: only the first call for it gets its grant, expired or not (the caller checks). */
  redeemCode(code: string): Promise<Redemption<CodeGrant>>;
  issueRefreshToken(grant: RefreshGrant): Promise<string>;
  /** The grant of a live refresh token (not used, revoked or expired), without spending it. */
  peekRefreshToken(token: string): Promise<RefreshGrant | null>;
  /** Spends a refresh token that is live (not used, revoked or expired). */
  redeemRefreshToken(token: string): Promise<Redemption<RefreshGrant>>;
  /** The grant a refresh token or an access token (by its id) belongs to. */
  grantOf(refreshTokenOrAccessId: { refreshToken?: string; accessTokenId?: string }): Promise<string | null>;
  /** Revokes every refresh token of a grant; answers the ids of the access tokens issued with them. */
  revokeGrant(grantId: string): Promise<string[]>;
}

export const newSecret = () => randomBytes(32).toString("base64url");
export const digest = (secret: string) => createHash("sha256").update(secret).digest("base64url");

export function grantStore(database: Database | null): GrantStore {
  return database ? databaseStore(database) : memoryStore();
}

interface CodeRow {
  grant_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  scope: string;
  me: string;
  expires_at: Date | string;
  used_at: Date | string | null;
}

interface RefreshRow {
  grant_id: string;
  client_id: string;
  scope: string;
  access_token_id: string;
  expires_at: Date | string;
  used_at: Date | string | null;
  revoked_at: Date | string | null;
}

const words = (scope: string) => scope.split(" ").filter(Boolean);

const refreshGrantOf = (row: RefreshRow): RefreshGrant => ({
  grantId: row.grant_id,
  clientId: row.client_id,
  scope: words(row.scope),
  accessTokenId: row.access_token_id,
  expiresAt: new Date(row.expires_at),
});

/**
 * Spends a secret by its hash in one statement, so that two redemptions at once cannot both win;
 * when nothing was spent, looks whether it had been spent before (a replay) or never existed.
 */
async function spendOnce<Row extends { grant_id: string }, Grant>(
  database: Database,
  hash: string,
  how: { spend: string; find: string; grantOf: (row: Row) => Grant; spentBefore: (row: Row) => boolean },
): Promise<Redemption<Grant>> {
  const spent = await database.query<Row>(how.spend, [hash]);
  const row = spent.rows[0];
  if (row) return { kind: "ok", grant: how.grantOf(row) };
  const before = await database.query<Row>(how.find, [hash]);
  const found = before.rows[0];
  return found && how.spentBefore(found) ? { kind: "reused", grantId: found.grant_id } : { kind: "unknown" };
}

function databaseStore(database: Database): GrantStore {
  return {
    async issueCode(grant) {
      const code = newSecret();
      // Spent and expired codes are kept a day, so that a late replay is still seen as one.
      await database.query("DELETE FROM indieauth_codes WHERE expires_at < now() - interval '1 day'");
      await database.query(
        `INSERT INTO indieauth_codes
           (code_hash, grant_id, client_id, redirect_uri, code_challenge, scope, me, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          digest(code),
          grant.grantId,
          grant.clientId,
          grant.redirectUri,
          grant.codeChallenge,
          grant.scope.join(" "),
          grant.me,
          new Date(Date.now() + CODE_LIFETIME_MS),
        ],
      );
      return code;
    },
    async redeemCode(code) {
      return spendOnce(database, digest(code), {
        spend: `UPDATE indieauth_codes SET used_at = now() WHERE code_hash = $1 AND used_at IS NULL
         RETURNING grant_id, client_id, redirect_uri, code_challenge, scope, me, expires_at, used_at`,
        find: "SELECT grant_id FROM indieauth_codes WHERE code_hash = $1",
        grantOf: (row: CodeRow): CodeGrant => ({
          grantId: row.grant_id,
          clientId: row.client_id,
          redirectUri: row.redirect_uri,
          codeChallenge: row.code_challenge,
          scope: words(row.scope),
          me: row.me,
          expiresAt: new Date(row.expires_at),
        }),
        // The statement above spends any code not used yet, so one still there was spent before.
        spentBefore: () => true,
      });
    },
    async issueRefreshToken(grant) {
      const token = newSecret();
      await database.query(
        "DELETE FROM indieauth_refresh_tokens WHERE expires_at < now() - interval '1 day'",
      );
      await database.query(
        `INSERT INTO indieauth_refresh_tokens
           (token_hash, grant_id, client_id, scope, access_token_id, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [
          digest(token),
          grant.grantId,
          grant.clientId,
          grant.scope.join(" "),
          grant.accessTokenId,
          grant.expiresAt,
        ],
      );
      return token;
    },
    async peekRefreshToken(token) {
      const result = await database.query<RefreshRow>(
        `SELECT grant_id, client_id, scope, access_token_id, expires_at, used_at, revoked_at
           FROM indieauth_refresh_tokens
          WHERE token_hash = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > now()`,
        [digest(token)],
      );
      const row = result.rows[0];
      return row ? refreshGrantOf(row) : null;
    },
    async redeemRefreshToken(token) {
      return spendOnce(database, digest(token), {
        spend: `UPDATE indieauth_refresh_tokens SET used_at = now()
          WHERE token_hash = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > now()
         RETURNING grant_id, client_id, scope, access_token_id, expires_at, used_at, revoked_at`,
        find: "SELECT grant_id, used_at FROM indieauth_refresh_tokens WHERE token_hash = $1",
        grantOf: refreshGrantOf,
        // A revoked or expired token that was never used is unknown, not a replay.
        spentBefore: (row) => Boolean(row.used_at),
      });
    },
    async grantOf({ refreshToken, accessTokenId }) {
      const result = refreshToken
        ? await database.query<{ grant_id: string }>(
            "SELECT grant_id FROM indieauth_refresh_tokens WHERE token_hash = $1",
            [digest(refreshToken)],
          )
        : await database.query<{ grant_id: string }>(
            "SELECT grant_id FROM indieauth_refresh_tokens WHERE access_token_id = $1 LIMIT 1",
            [accessTokenId ?? ""],
          );
      return result.rows[0]?.grant_id ?? null;
    },
    async revokeGrant(grantId) {
      const result = await database.query<{ access_token_id: string }>(
        `UPDATE indieauth_refresh_tokens SET revoked_at = coalesce(revoked_at, now())
          WHERE grant_id = $1 RETURNING access_token_id`,
        [grantId],
      );
      return [...new Set(result.rows.map((row) => row.access_token_id))];
    },
  };
}

/** Without a database, grants live as long as the process (as the token registry does). */
function memoryStore(): GrantStore {
  const codes = new Map<string, CodeGrant & { used: boolean }>();
  const refresh = new Map<string, RefreshGrant & { used: boolean; revoked: boolean }>();
  const sweep = () => {
    const horizon = Date.now() - 86_400_000;
    for (const [hash, code] of codes) if (code.expiresAt.getTime() < horizon) codes.delete(hash);
    for (const [hash, token] of refresh) if (token.expiresAt.getTime() < horizon) refresh.delete(hash);
  };
  return {
    async issueCode(grant) {
      sweep();
      const code = newSecret();
      codes.set(digest(code), { ...grant, expiresAt: new Date(Date.now() + CODE_LIFETIME_MS), used: false });
      return code;
    },
    async redeemCode(code) {
      const found = codes.get(digest(code));
      if (!found) return { kind: "unknown" };
      if (found.used) return { kind: "reused", grantId: found.grantId };
      found.used = true;
      const { used: _used, ...grant } = found;
      return { kind: "ok", grant };
    },
    async issueRefreshToken(grant) {
      sweep();
      const token = newSecret();
      refresh.set(digest(token), { ...grant, used: false, revoked: false });
      return token;
    },
    async peekRefreshToken(token) {
      const found = refresh.get(digest(token));
      if (!found || found.used || found.revoked || found.expiresAt.getTime() <= Date.now()) return null;
      const { used: _used, revoked: _revoked, ...grant } = found;
      return grant;
    },
    async redeemRefreshToken(token) {
      const found = refresh.get(digest(token));
      if (!found) return { kind: "unknown" };
      if (found.used) return { kind: "reused", grantId: found.grantId };
      if (found.revoked || found.expiresAt.getTime() <= Date.now()) return { kind: "unknown" };
      found.used = true;
      const { used: _used, revoked: _revoked, ...grant } = found;
      return { kind: "ok", grant };
    },
    async grantOf({ refreshToken, accessTokenId }) {
      if (refreshToken) return refresh.get(digest(refreshToken))?.grantId ?? null;
      for (const token of refresh.values()) if (token.accessTokenId === accessTokenId) return token.grantId;
      return null;
    },
    async revokeGrant(grantId) {
      const ids = new Set<string>();
      for (const token of refresh.values()) {
        if (token.grantId !== grantId) continue;
        token.revoked = true;
        ids.add(token.accessTokenId);
      }
      return [...ids];
    },
  };
}
