// The connected accounts' rows: non-secret options and display, and the secrets sealed field by
// field (secret-box.ts) with the account and the field as associated data. Nothing here registers a
// syndicator: connected-accounts.ts does, around these reads and writes.
import { randomUUID } from "node:crypto";
import type { AccountDisplay, AccountInput, AccountType, ConnectedAccount } from "../../contract/accounts.ts";
import type { Database, Queryable } from "../../contract/database.ts";
import { SecretBox } from "./secret-box.ts";

interface SealedField {
  sealed: string;
  set_at: string;
}

interface AccountRow {
  id: string;
  type: AccountType;
  uid: string;
  options: Record<string, unknown>;
  settings: Record<string, unknown>;
  display: AccountDisplay;
  secrets: Record<string, SealedField>;
  needs_reconnect_reason: string | null;
  needs_reconnect_since: Date | string | null;
  connected_at: Date | string;
  updated_at: Date | string;
}

const COLUMNS =
  "id, type, uid, options, settings, display, secrets, needs_reconnect_reason, needs_reconnect_since, connected_at, updated_at";

/** What binds a sealed value to its place: moved to another account or field, it does not open. */
export const associatedData = (accountId: string, field: string) => `connected-account:${accountId}/${field}`;

function toAccount(row: AccountRow): ConnectedAccount {
  const since = row.needs_reconnect_since;
  return {
    id: row.id,
    type: row.type,
    uid: row.uid,
    options: row.options,
    settings: row.settings,
    display: row.display,
    secretsSetAt: Object.fromEntries(
      Object.entries(row.secrets).map(([field, value]) => [field, new Date(value.set_at)]),
    ),
    needsReconnect:
      row.needs_reconnect_reason !== null && since !== null
        ? { reason: row.needs_reconnect_reason, since: new Date(since) }
        : null,
    connectedAt: new Date(row.connected_at),
    updatedAt: new Date(row.updated_at),
  };
}

export class AccountStore {
  constructor(
    private readonly database: Database,
    private readonly box: SecretBox,
    private readonly now: () => number = Date.now,
  ) {}

  get currentKeyId(): string {
    return this.box.currentKeyId;
  }

  async list(): Promise<ConnectedAccount[]> {
    const { rows } = await this.database.query<AccountRow>(
      `SELECT ${COLUMNS} FROM connected_accounts ORDER BY connected_at, id`,
    );
    return rows.map(toAccount);
  }

  async get(id: string): Promise<ConnectedAccount | null> {
    const { rows } = await this.database.query<AccountRow>(
      `SELECT ${COLUMNS} FROM connected_accounts WHERE id = $1`,
      [id],
    );
    return rows[0] ? toAccount(rows[0]) : null;
  }

  async byUid(uid: string): Promise<ConnectedAccount | null> {
    const { rows } = await this.database.query<AccountRow>(
      `SELECT ${COLUMNS} FROM connected_accounts WHERE uid = $1`,
      [uid],
    );
    return rows[0] ? toAccount(rows[0]) : null;
  }

  /** Adds the account, or replaces the one with this uid (keeping its id); clears needs-reconnect. */
  async save(input: AccountInput, uid: string): Promise<ConnectedAccount> {
    return this.database.transaction(async (tx) => {
      const existing = await tx.query<{ id: string }>(
        "SELECT id FROM connected_accounts WHERE uid = $1 FOR UPDATE",
        [uid],
      );
      const id = existing.rows[0]?.id ?? randomUUID();
      const at = new Date(this.now());
      const secrets = this.#sealAll(id, input.secrets, at);
      const { rows } = await tx.query<AccountRow>(
        `INSERT INTO connected_accounts (id, type, uid, options, display, secrets, connected_at, updated_at)
         VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6::jsonb, $7, $7)
         ON CONFLICT (id) DO UPDATE SET type = $2, options = $4::jsonb, display = $5::jsonb,
           secrets = $6::jsonb, needs_reconnect_reason = NULL, needs_reconnect_since = NULL, updated_at = $7
         RETURNING ${COLUMNS}`,
        [
          id,
          input.type,
          uid,
          JSON.stringify(input.options),
          JSON.stringify(input.display),
          JSON.stringify(secrets),
          at,
        ],
      );
      return toAccount(rows[0] as AccountRow);
    });
  }

  /** Replaces the settings the owner set on the page; null when there is no such account. */
  async saveSettings(id: string, settings: Record<string, unknown>): Promise<ConnectedAccount | null> {
    const { rows } = await this.database.query<AccountRow>(
      `UPDATE connected_accounts SET settings = $2::jsonb, updated_at = $3 WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, JSON.stringify(settings), new Date(this.now())],
    );
    return rows[0] ? toAccount(rows[0]) : null;
  }

  async remove(id: string): Promise<ConnectedAccount | null> {
    const { rows } = await this.database.query<AccountRow>(
      `DELETE FROM connected_accounts WHERE id = $1 RETURNING ${COLUMNS}`,
      [id],
    );
    return rows[0] ? toAccount(rows[0]) : null;
  }

  /** The account's secrets, opened; throws SecretBoxError when one was tampered with. */
  async secrets(id: string): Promise<Record<string, string>> {
    const { rows } = await this.database.query<Pick<AccountRow, "secrets">>(
      "SELECT secrets FROM connected_accounts WHERE id = $1",
      [id],
    );
    const sealed = rows[0]?.secrets ?? {};
    return Object.fromEntries(
      Object.entries(sealed).map(([field, value]) => [
        field,
        this.box.open(value.sealed, associatedData(id, field)),
      ]),
    );
  }

  /** Keeps the first reason and time: the account needs reconnecting since it was first refused. */
  async markNeedsReconnect(id: string, reason: string): Promise<boolean> {
    const result = await this.database.query(
      `UPDATE connected_accounts SET needs_reconnect_reason = $2,
         needs_reconnect_since = COALESCE(needs_reconnect_since, $3), updated_at = $3
       WHERE id = $1`,
      [id, reason, new Date(this.now())],
    );
    return result.rowCount > 0;
  }

  /** The account needs no reconnecting any more (what made it need one was fixed otherwise). */
  async clearNeedsReconnect(id: string): Promise<void> {
    await this.database.query(
      `UPDATE connected_accounts SET needs_reconnect_reason = NULL, needs_reconnect_since = NULL, updated_at = $2
       WHERE id = $1 AND needs_reconnect_reason IS NOT NULL`,
      [id, new Date(this.now())],
    );
  }

  /**
   * Seals every secret not sealed under the current key again under it (after a key rotation).
   * Returns how many values were sealed again.
   */
  async rekey(): Promise<number> {
    return this.database.transaction(async (tx) => {
      const { rows } = await tx.query<Pick<AccountRow, "id" | "secrets">>(
        "SELECT id, secrets FROM connected_accounts FOR UPDATE",
      );
      let count = 0;
      for (const row of rows) {
        const next: Record<string, SealedField> = {};
        let changed = false;
        for (const [field, value] of Object.entries(row.secrets)) {
          if (SecretBox.keyIdOf(value.sealed) === this.box.currentKeyId) {
            next[field] = value;
            continue;
          }
          const aad = associatedData(row.id, field);
          next[field] = {
            sealed: this.box.seal(this.box.open(value.sealed, aad), aad),
            set_at: value.set_at,
          };
          changed = true;
          count++;
        }
        if (changed) await this.#writeSecrets(tx, row.id, next);
      }
      return count;
    });
  }

  #sealAll(id: string, secrets: Record<string, string>, at: Date): Record<string, SealedField> {
    return Object.fromEntries(
      Object.entries(secrets).map(([field, value]) => [
        field,
        { sealed: this.box.seal(value, associatedData(id, field)), set_at: at.toISOString() },
      ]),
    );
  }

  async #writeSecrets(tx: Queryable, id: string, secrets: Record<string, SealedField>): Promise<void> {
    await tx.query("UPDATE connected_accounts SET secrets = $2::jsonb WHERE id = $1", [
      id,
      JSON.stringify(secrets),
    ]);
  }
}
