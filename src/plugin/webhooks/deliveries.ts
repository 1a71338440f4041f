// Replay protection: a signed webhook proves who sent it, not when. Someone who captured one (a
// proxy log, a leaked request dump) could send it again and again. So every verified delivery's
// ids are kept for a day in the database (shared by every instance), and a delivery whose id was
// seen is a replay: answered, but nothing starts.
import { createHash } from "node:crypto";
import type { Queryable } from "../../contract/database.ts";

/** How long a delivery id is remembered; providers redeliver within minutes, not days. */
export const DELIVERY_MEMORY_HOURS = 24;

/** Ids are stored hashed: fixed length, whatever a sender put into its header. */
const stored = (key: string) => createHash("sha256").update(key).digest("hex");

export class WebhookDeliveries {
  constructor(private readonly database: Queryable) {}

  /**
   * Records the delivery's ids; true when none of them was seen within the last day (a first
   * delivery), false when one was (a replay). An id seen longer ago counts as new and is renewed.
   * Atomic per id, so that two copies sent at once cannot both be first.
   */
  async first(keys: readonly string[]): Promise<boolean> {
    if (keys.length === 0) return true;
    await this.database.query(
      `DELETE FROM webhook_deliveries WHERE seen_at < now() - $1::int * interval '1 hour'`,
      [DELIVERY_MEMORY_HOURS],
    );
    const hashes = [...new Set(keys.map(stored))];
    const inserted = await this.database.query<{ key: string }>(
      `INSERT INTO webhook_deliveries (key, seen_at)
       SELECT unnest($1::text[]), now()
       ON CONFLICT (key) DO UPDATE SET seen_at = now()
         WHERE webhook_deliveries.seen_at < now() - $2::int * interval '1 hour'
       RETURNING key`,
      [hashes, DELIVERY_MEMORY_HOURS],
    );
    return inserted.rows.length === hashes.length;
  }

  /** Forgets a delivery that could not be carried out (the server was shutting down), so that its resend counts. */
  async forget(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.database.query(`DELETE FROM webhook_deliveries WHERE key = ANY($1::text[])`, [
      keys.map(stored),
    ]);
  }
}
