// Sessions ended by signing out. A session is a signed cookie any instance accepts, so ending it
// means remembering its id until it would have expired anyway: in the database, shared by every
// instance, or in memory when the server runs without one.
import type { Database, Migration } from "../../contract/database.ts";

export interface SessionRevocations {
  revoke(sessionId: string, expiresAt: Date): Promise<void>;
  isRevoked(sessionId: string): Promise<boolean>;
}

export const sessionRevocationMigrations: Migration[] = [
  {
    id: "host/003-revoked-sessions",
    sql: `CREATE TABLE revoked_sessions (
      session_id text PRIMARY KEY,
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX revoked_sessions_expires_at ON revoked_sessions (expires_at);`,
  },
];

export function sessionRevocations(database: Database | null): SessionRevocations {
  if (!database) {
    const revoked = new Map<string, number>();
    return {
      async revoke(sessionId, expiresAt) {
        const now = Date.now();
        for (const [id, until] of revoked) if (until < now) revoked.delete(id);
        revoked.set(sessionId, expiresAt.getTime());
      },
      async isRevoked(sessionId) {
        return (revoked.get(sessionId) ?? 0) >= Date.now();
      },
    };
  }
  return {
    async revoke(sessionId, expiresAt) {
      // Expired entries can never match a valid cookie again; sweeping them here keeps the table small.
      await database.query("DELETE FROM revoked_sessions WHERE expires_at < now()");
      await database.query(
        "INSERT INTO revoked_sessions (session_id, expires_at) VALUES ($1, $2) ON CONFLICT (session_id) DO NOTHING",
        [sessionId, expiresAt],
      );
    },
    async isRevoked(sessionId) {
      const result = await database.query("SELECT 1 FROM revoked_sessions WHERE session_id = $1", [
        sessionId,
      ]);
      return result.rows.length > 0;
    },
  };
}
