// The WebSub subscriptions in the database (table websub_subscriptions, migrations.ts). Times are
// milliseconds in the code and timestamptz in the table.
import type { Database } from "../../../../contract/database.ts";
import type { WebSubState, WebSubSubscription, WebSubSubscriptionStore } from "./subscription-store.ts";

interface Row {
  id: string;
  feed_key: string;
  hub: string;
  topic: string;
  /** Empty: no secret (the column is NOT NULL). */
  secret: string;
  state: WebSubState;
  requested_at: number;
  lease_seconds: number | null;
  expires_at: number | null;
  renew_at: number | null;
  last_error: string | null;
}

const COLUMNS = `id, feed_key, hub, topic, secret, state,
  (extract(epoch FROM requested_at) * 1000)::float8 AS requested_at, lease_seconds,
  (extract(epoch FROM expires_at) * 1000)::float8 AS expires_at,
  (extract(epoch FROM renew_at) * 1000)::float8 AS renew_at, last_error`;

const time = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const ms = (value: number | null) => (value === null ? null : Math.round(Number(value)));

function fromRow(row: Row): WebSubSubscription {
  return {
    id: row.id,
    feedKey: row.feed_key,
    hub: row.hub,
    topic: row.topic,
    secret: row.secret === "" ? null : row.secret,
    state: row.state,
    requestedAt: ms(row.requested_at) ?? 0,
    leaseSeconds: row.lease_seconds,
    expiresAt: ms(row.expires_at),
    renewAt: ms(row.renew_at),
    lastError: row.last_error,
  };
}

/**
 * @example
 * await migrate(database, webSubMigrations);
 * const store = new SqlWebSubSubscriptionStore(database);
 */
export class SqlWebSubSubscriptionStore implements WebSubSubscriptionStore {
  constructor(private readonly database: Database) {}

  async save(subscription: WebSubSubscription): Promise<void> {
    const s = subscription;
    await this.database.query(
      `INSERT INTO websub_subscriptions
         (id, feed_key, hub, topic, secret, state, requested_at, lease_seconds, expires_at, renew_at, last_error)
       VALUES ($1, $2, $3, $4, $5, $6, $7::timestamptz, $8, $9::timestamptz, $10::timestamptz, $11)
       ON CONFLICT (id) DO UPDATE SET
         feed_key = EXCLUDED.feed_key, hub = EXCLUDED.hub, topic = EXCLUDED.topic, secret = EXCLUDED.secret,
         state = EXCLUDED.state, requested_at = EXCLUDED.requested_at, lease_seconds = EXCLUDED.lease_seconds,
         expires_at = EXCLUDED.expires_at, renew_at = EXCLUDED.renew_at, last_error = EXCLUDED.last_error`,
      [
        s.id,
        s.feedKey,
        s.hub,
        s.topic,
        s.secret ?? "",
        s.state,
        time(s.requestedAt),
        s.leaseSeconds,
        time(s.expiresAt),
        time(s.renewAt),
        s.lastError,
      ],
    );
  }

  async get(id: string): Promise<WebSubSubscription | undefined> {
    const { rows } = await this.database.query<Row>(
      `SELECT ${COLUMNS} FROM websub_subscriptions WHERE id = $1`,
      [id],
    );
    return rows[0] && fromRow(rows[0]);
  }

  async forFeed(feedKey: string): Promise<WebSubSubscription | undefined> {
    const { rows } = await this.database.query<Row>(
      `SELECT ${COLUMNS} FROM websub_subscriptions WHERE feed_key = $1 AND state <> 'ended'
       ORDER BY requested_at DESC, id LIMIT 1`,
      [feedKey],
    );
    return rows[0] && fromRow(rows[0]);
  }

  async dueForRenewal(now: number, limit: number): Promise<WebSubSubscription[]> {
    const { rows } = await this.database.query<Row>(
      `SELECT ${COLUMNS} FROM websub_subscriptions WHERE state = 'active' AND renew_at <= $1::timestamptz
       ORDER BY renew_at, id LIMIT $2`,
      [time(now), limit],
    );
    return rows.map(fromRow);
  }

  /**
   * Whether the database holds a subscription not ended (false when it has no such table: no feed
   * was ever read from it).
   */
  static async anyNotEnded(database: Database): Promise<boolean> {
    const { rows } = await database.query<{ present: boolean }>(
      "SELECT to_regclass('websub_subscriptions') IS NOT NULL AS present",
    );
    if (!rows[0]?.present) return false;
    const live = await database.query("SELECT 1 FROM websub_subscriptions WHERE state <> 'ended' LIMIT 1");
    return live.rows.length > 0;
  }

  async nextRenewalAt(): Promise<number | null> {
    const { rows } = await this.database.query<{ next: number | null }>(
      `SELECT (extract(epoch FROM min(renew_at)) * 1000)::float8 AS next FROM websub_subscriptions
       WHERE state = 'active'`,
    );
    return ms(rows[0]?.next ?? null);
  }

  async ofOtherFeeds(feedKeys: readonly string[]): Promise<WebSubSubscription[]> {
    const { rows } = await this.database.query<Row>(
      `SELECT ${COLUMNS} FROM websub_subscriptions
       WHERE state <> 'ended' AND NOT (feed_key = ANY($1::text[])) ORDER BY requested_at, id`,
      [[...feedKeys]],
    );
    return rows.map(fromRow);
  }
}
