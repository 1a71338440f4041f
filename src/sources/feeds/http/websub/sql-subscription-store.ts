// The WebSub subscriptions in the database (table websub_subscriptions, migrations.ts). Times are
// milliseconds in the code and timestamptz in the table. Each subscription's secret is sealed with
// the host's secret box (the one the connected accounts use) when the host lends one, bound to the
// subscription's id: a sealed secret copied into another row does not open. A secret stored in clear
// (by a version before sealing, or under a host without a box) is still read, and sealed by
// sealAtRest at the next start.

import type { Database } from "../../../../contract/database.ts";
import type { SecretSealer } from "../../../../contract/secret-sealer.ts";
import type { WebSubState, WebSubSubscription, WebSubSubscriptionStore } from "./subscription-store.ts";

interface Row {
  id: string;
  feed_key: string;
  hub: string;
  topic: string;
  /** Empty: no secret (the column is NOT NULL). Sealed, or in clear from before sealing. */
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

/** What the secret is bound to: this subscription's id, and the field. */
const associatedData = (id: string) => `websub-subscription:${id}/secret`;

function fromRow(row: Row, sealer: SecretSealer | null): WebSubSubscription {
  return {
    id: row.id,
    feedKey: row.feed_key,
    hub: row.hub,
    topic: row.topic,
    secret: secretOf(row, sealer),
    state: row.state,
    requestedAt: ms(row.requested_at) ?? 0,
    leaseSeconds: row.lease_seconds,
    expiresAt: ms(row.expires_at),
    renewAt: ms(row.renew_at),
    lastError: row.last_error,
  };
}

function secretOf(row: Row, sealer: SecretSealer | null): string | null {
  if (row.secret === "") return null;
  if (!sealer?.isSealed(row.secret)) return row.secret;
  // A value that does not open (its key not given) throws: the box's error names the variable to set.
  return sealer.open(row.secret, associatedData(row.id));
}

/**
 * @example
 * await migrate(database, webSubMigrations);
 * const store = new SqlWebSubSubscriptionStore(database, () => server.secretSealer ?? null);
 */
export class SqlWebSubSubscriptionStore implements WebSubSubscriptionStore {
  constructor(
    private readonly database: Database,
    /**
     * The host's secret box, asked at each use: the host makes it after the plug-ins are installed.
     * None (Indiekit, or a test of the protocol alone): secrets are stored as they are.
     */
    private readonly sealer: () => SecretSealer | null = () => null,
  ) {}

  #fromRow = (row: Row) => fromRow(row, this.sealer());

  /**
   * Seals every secret not sealed under the current key: those stored in clear before sealing, and
   * those under a key since rotated (`possekit rekey`). Returns how many; 0 without a box or a table.
   */
  async sealAtRest(): Promise<number> {
    const sealer = this.sealer();
    if (!sealer) return 0;
    const { rows: present } = await this.database.query<{ present: boolean }>(
      "SELECT to_regclass('websub_subscriptions') IS NOT NULL AS present",
    );
    if (!present[0]?.present) return 0;
    return this.database.transaction(async (tx) => {
      const { rows } = await tx.query<{ id: string; secret: string }>(
        "SELECT id, secret FROM websub_subscriptions WHERE secret <> '' FOR UPDATE",
      );
      let count = 0;
      for (const row of rows) {
        if (sealer.isSealed(row.secret) && sealer.isCurrent(row.secret)) continue;
        const aad = associatedData(row.id);
        const clear = sealer.isSealed(row.secret) ? sealer.open(row.secret, aad) : row.secret;
        await tx.query("UPDATE websub_subscriptions SET secret = $2 WHERE id = $1", [
          row.id,
          sealer.seal(clear, aad),
        ]);
        count += 1;
      }
      return count;
    });
  }

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
        this.#sealed(s),
        s.state,
        time(s.requestedAt),
        s.leaseSeconds,
        time(s.expiresAt),
        time(s.renewAt),
        s.lastError,
      ],
    );
  }

  #sealed(subscription: WebSubSubscription): string {
    const sealer = this.sealer();
    if (subscription.secret === null) return "";
    return sealer ? sealer.seal(subscription.secret, associatedData(subscription.id)) : subscription.secret;
  }

  async get(id: string): Promise<WebSubSubscription | undefined> {
    const { rows } = await this.database.query<Row>(
      `SELECT ${COLUMNS} FROM websub_subscriptions WHERE id = $1`,
      [id],
    );
    return rows[0] && this.#fromRow(rows[0]);
  }

  async forFeed(feedKey: string): Promise<WebSubSubscription | undefined> {
    const { rows } = await this.database.query<Row>(
      `SELECT ${COLUMNS} FROM websub_subscriptions WHERE feed_key = $1 AND state <> 'ended'
       ORDER BY requested_at DESC, id LIMIT 1`,
      [feedKey],
    );
    return rows[0] && this.#fromRow(rows[0]);
  }

  async dueForRenewal(now: number, limit: number): Promise<WebSubSubscription[]> {
    const { rows } = await this.database.query<Row>(
      `SELECT ${COLUMNS} FROM websub_subscriptions WHERE state = 'active' AND renew_at <= $1::timestamptz
       ORDER BY renew_at, id LIMIT $2`,
      [time(now), limit],
    );
    return rows.map(this.#fromRow);
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
    return rows.map(this.#fromRow);
  }
}
