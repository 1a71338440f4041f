// The access tokens this server knows of, by id (the JWT's jti): those the status page issued, and
// those issued elsewhere (`possekit token`, which may run where the database is out of reach) from
// their first use. Tokens belong to a grant (an IndieAuth consent and its refreshes; any other token
// is a grant of its own): revoking one token revokes every token of its grant, and a row is kept
// until `keep_until`, the end of the grant's longest-lived token (its refresh token included), so
// sweeping expired rows never forgets a revocation while a token of the grant could still be used.
import type { Database, Migration } from "../../contract/database.ts";
import type { TokenClaims } from "./tokens.ts";

export interface KnownToken {
  id: string;
  /** The grant the token belongs to: its IndieAuth consent, or the token itself. */
  grantId: string;
  scope: string[];
  clientId: string;
  issuedAt: Date;
  expiresAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export interface TokenRegistry {
  /**
   * Remembers an issued token. The status page issues its id again on every view, each copy living
   * longer: the row lives as long as the longest, so a revocation outlives every copy.
   */
  record(claims: TokenClaims, grant?: GrantOfToken): Promise<void>;
  /** A token presented with a request: false when it was revoked. Remembers it on its first use. */
  admit(claims: TokenClaims): Promise<boolean>;
  /** Tokens not yet expired, newest first. */
  list(): Promise<KnownToken[]>;
  /** Revokes a token and every token of its grant: the grant's id, or null when no token has that id. */
  revoke(id: string): Promise<string | null>;
  /** Whether the token with this id was revoked (a refresh must not outlive its revoked token). */
  isRevoked(id: string): Promise<boolean>;
}

/** Where a token comes from: its grant, and how long a revocation of it must be remembered. */
export interface GrantOfToken {
  id: string;
  /** The end of the grant's longest-lived token (a refresh token issued with this one). */
  keepUntil: Date;
}

export const tokenRegistryMigrations: Migration[] = [
  {
    id: "host/004-access-tokens",
    sql: `CREATE TABLE access_tokens (
      id text PRIMARY KEY,
      scope text NOT NULL,
      client_id text NOT NULL,
      issued_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      last_used_at timestamptz,
      revoked_at timestamptz
    );
    CREATE INDEX access_tokens_expires_at ON access_tokens (expires_at);`,
  },
  {
    // Decision 0043: revoking a token revokes its grant, and the revocation outlives the grant's tokens.
    // IndieAuth tokens get their grant from the refresh tokens (host/007, after their table exists).
    id: "host/006-access-token-grants",
    sql: `ALTER TABLE access_tokens ADD COLUMN grant_id text;
    ALTER TABLE access_tokens ADD COLUMN keep_until timestamptz;
    UPDATE access_tokens SET grant_id = id, keep_until = expires_at;
    ALTER TABLE access_tokens ALTER COLUMN grant_id SET NOT NULL;
    ALTER TABLE access_tokens ALTER COLUMN keep_until SET NOT NULL;
    CREATE INDEX access_tokens_grant ON access_tokens (grant_id);
    CREATE INDEX access_tokens_keep_until ON access_tokens (keep_until);`,
  },
  {
    // A token's issued_at is the JWT's iat, whole seconds: tokens made within one second are listed
    // newest first by when this server first knew them, not by their random ids.
    id: "host/013-access-token-recorded-at",
    sql: "ALTER TABLE access_tokens ADD COLUMN recorded_at timestamptz NOT NULL DEFAULT clock_timestamp();",
  },
];

// Writing the time of use on every request would turn each authenticated read into a write.
const LAST_USED_PRECISION_MS = 60_000;

interface TokenRow {
  id: string;
  grant_id: string;
  scope: string;
  client_id: string;
  issued_at: Date | string;
  expires_at: Date | string;
  last_used_at: Date | string | null;
  revoked_at: Date | string | null;
}

const dateOrNull = (value: Date | string | null) => (value === null ? null : new Date(value));

function fromRow(row: TokenRow): KnownToken {
  return {
    id: row.id,
    grantId: row.grant_id,
    scope: row.scope.split(" ").filter(Boolean),
    clientId: row.client_id,
    issuedAt: new Date(row.issued_at),
    expiresAt: new Date(row.expires_at),
    lastUsedAt: dateOrNull(row.last_used_at),
    revokedAt: dateOrNull(row.revoked_at),
  };
}

export function tokenRegistry(database: Database | null): TokenRegistry {
  return database ? databaseRegistry(database) : memoryRegistry();
}

function databaseRegistry(database: Database): TokenRegistry {
  const insert = async (claims: TokenClaims, lastUsedAt: Date | null, grant?: GrantOfToken) => {
    // Only rows no token of whose grant can still be used: a revocation is kept as long as that.
    await database.query("DELETE FROM access_tokens WHERE keep_until < now()");
    const grantId = grant?.id ?? claims.id;
    const keepUntil = grant && grant.keepUntil > claims.expiresAt ? grant.keepUntil : claims.expiresAt;
    // A token added to a grant revoked meanwhile (a refresh racing the owner's click) is born revoked.
    await database.query(
      `INSERT INTO access_tokens
         (id, scope, client_id, issued_at, expires_at, last_used_at, grant_id, keep_until, revoked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8,
               (SELECT min(revoked_at) FROM access_tokens WHERE grant_id = $7))
       ON CONFLICT (id) DO UPDATE SET expires_at = GREATEST(access_tokens.expires_at, EXCLUDED.expires_at),
         keep_until = GREATEST(access_tokens.keep_until, EXCLUDED.keep_until)`,
      [
        claims.id,
        claims.scope.join(" "),
        claims.clientId,
        claims.issuedAt,
        claims.expiresAt,
        lastUsedAt,
        grantId,
        keepUntil,
      ],
    );
  };
  return {
    record: (claims, grant) => insert(claims, null, grant),
    async admit(claims) {
      const found = await database.query<Pick<TokenRow, "last_used_at" | "revoked_at">>(
        "SELECT last_used_at, revoked_at FROM access_tokens WHERE id = $1",
        [claims.id],
      );
      const row = found.rows[0];
      const now = new Date();
      if (!row) {
        await insert(claims, now);
        return true;
      }
      if (row.revoked_at !== null) return false;
      const lastUsed = dateOrNull(row.last_used_at);
      if (!lastUsed || now.getTime() - lastUsed.getTime() > LAST_USED_PRECISION_MS)
        await database.query("UPDATE access_tokens SET last_used_at = $2 WHERE id = $1", [claims.id, now]);
      return true;
    },
    async list() {
      const result = await database.query<TokenRow>(
        `SELECT id, grant_id, scope, client_id, issued_at, expires_at, last_used_at, revoked_at
           FROM access_tokens WHERE expires_at >= now() ORDER BY issued_at DESC, recorded_at DESC, id`,
      );
      return result.rows.map(fromRow);
    },
    async revoke(id) {
      const result = await database.query<{ grant_id: string }>(
        `UPDATE access_tokens SET revoked_at = coalesce(revoked_at, now())
          WHERE grant_id = (SELECT grant_id FROM access_tokens WHERE id = $1) RETURNING grant_id`,
        [id],
      );
      return result.rows[0]?.grant_id ?? null;
    },
    async isRevoked(id) {
      const result = await database.query<{ revoked_at: Date | string | null }>(
        "SELECT revoked_at FROM access_tokens WHERE id = $1",
        [id],
      );
      return result.rows[0]?.revoked_at != null;
    },
  };
}

/** Without a database the registry lives as long as the process: revocations end with it. */
function memoryRegistry(): TokenRegistry {
  const tokens = new Map<string, KnownToken & { keepUntil: Date; recorded: number }>();
  let recorded = 0;
  const sweep = () => {
    const now = Date.now();
    for (const [id, token] of tokens) if (token.keepUntil.getTime() < now) tokens.delete(id);
  };
  const grantRevokedAt = (grantId: string) => {
    for (const token of tokens.values())
      if (token.grantId === grantId && token.revokedAt) return token.revokedAt;
    return null;
  };
  const remember = (claims: TokenClaims, lastUsedAt: Date | null, grant?: GrantOfToken) => {
    sweep();
    const keepUntil = grant && grant.keepUntil > claims.expiresAt ? grant.keepUntil : claims.expiresAt;
    const known = tokens.get(claims.id);
    if (known) {
      if (claims.expiresAt > known.expiresAt) known.expiresAt = claims.expiresAt;
      if (keepUntil > known.keepUntil) known.keepUntil = keepUntil;
      return;
    }
    const grantId = grant?.id ?? claims.id;
    tokens.set(claims.id, {
      id: claims.id,
      grantId,
      scope: [...claims.scope],
      clientId: claims.clientId,
      issuedAt: claims.issuedAt,
      expiresAt: claims.expiresAt,
      keepUntil,
      lastUsedAt,
      revokedAt: grantRevokedAt(grantId),
      recorded: ++recorded,
    });
  };
  return {
    async record(claims, grant) {
      remember(claims, null, grant);
    },
    async admit(claims) {
      const known = tokens.get(claims.id);
      if (known?.revokedAt) return false;
      if (known) known.lastUsedAt = new Date();
      else remember(claims, new Date());
      return true;
    },
    async list() {
      sweep();
      const now = Date.now();
      return [...tokens.values()]
        .filter((token) => token.expiresAt.getTime() >= now)
        .sort((a, b) => b.issuedAt.getTime() - a.issuedAt.getTime() || b.recorded - a.recorded)
        .map(({ keepUntil: _keepUntil, recorded: _recorded, ...token }) => token);
    },
    async revoke(id) {
      const grantId = tokens.get(id)?.grantId;
      if (grantId === undefined) return null;
      const now = new Date();
      for (const token of tokens.values()) if (token.grantId === grantId) token.revokedAt ??= now;
      return grantId;
    },
    async isRevoked(id) {
      return !!tokens.get(id)?.revokedAt;
    },
  };
}
