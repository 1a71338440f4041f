// The access tokens this server knows of, by id (the JWT's jti): those the status page issued, and
// those issued elsewhere (`possekit token`, which may run where the database is out of reach) from
// their first use. A revoked id is refused on every instance until the token would have expired
// anyway; expired rows are swept as new ones arrive.
import type { Database, Migration } from "../../contract/database.ts";
import type { TokenClaims } from "./tokens.ts";

export interface KnownToken {
  id: string;
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
  record(claims: TokenClaims): Promise<void>;
  /** A token presented with a request: false when it was revoked. Remembers it on its first use. */
  admit(claims: TokenClaims): Promise<boolean>;
  /** Tokens not yet expired, newest first. */
  list(): Promise<KnownToken[]>;
  /** Revokes a token; false when no token has that id. */
  revoke(id: string): Promise<boolean>;
  /** Whether the token with this id was revoked (a refresh must not outlive its revoked token). */
  isRevoked(id: string): Promise<boolean>;
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
];

// Writing the time of use on every request would turn each authenticated read into a write.
const LAST_USED_PRECISION_MS = 60_000;

interface TokenRow {
  id: string;
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
  const insert = async (claims: TokenClaims, lastUsedAt: Date | null) => {
    await database.query("DELETE FROM access_tokens WHERE expires_at < now()");
    await database.query(
      `INSERT INTO access_tokens (id, scope, client_id, issued_at, expires_at, last_used_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (id) DO UPDATE SET expires_at = GREATEST(access_tokens.expires_at, EXCLUDED.expires_at)`,
      [claims.id, claims.scope.join(" "), claims.clientId, claims.issuedAt, claims.expiresAt, lastUsedAt],
    );
  };
  return {
    record: (claims) => insert(claims, null),
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
        `SELECT id, scope, client_id, issued_at, expires_at, last_used_at, revoked_at
           FROM access_tokens WHERE expires_at >= now() ORDER BY issued_at DESC, id`,
      );
      return result.rows.map(fromRow);
    },
    async revoke(id) {
      const result = await database.query<{ id: string }>(
        "UPDATE access_tokens SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING id",
        [id],
      );
      return result.rows.length > 0;
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
  const tokens = new Map<string, KnownToken>();
  const sweep = () => {
    const now = Date.now();
    for (const [id, token] of tokens) if (token.expiresAt.getTime() < now) tokens.delete(id);
  };
  const remember = (claims: TokenClaims, lastUsedAt: Date | null) => {
    sweep();
    const known = tokens.get(claims.id);
    if (known) {
      if (claims.expiresAt > known.expiresAt) known.expiresAt = claims.expiresAt;
      return;
    }
    tokens.set(claims.id, {
      id: claims.id,
      scope: [...claims.scope],
      clientId: claims.clientId,
      issuedAt: claims.issuedAt,
      expiresAt: claims.expiresAt,
      lastUsedAt,
      revokedAt: null,
    });
  };
  return {
    async record(claims) {
      remember(claims, null);
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
      return [...tokens.values()].sort((a, b) => b.issuedAt.getTime() - a.issuedAt.getTime());
    },
    async revoke(id) {
      const known = tokens.get(id);
      if (!known) return false;
      known.revokedAt ??= new Date();
      return true;
    },
    async isRevoked(id) {
      return !!tokens.get(id)?.revokedAt;
    },
  };
}
