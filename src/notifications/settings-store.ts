// The notification channels saved from the Notifications page: what the page shows in clear (the
// SMTP URL without its password, the addresses, the webhook URL, the events) and the one secret of
// each channel (the SMTP password, the webhook's signing key) sealed with the host's secret box,
// the channel's name as associated data. The notifier reads them at each delivery, so a save takes
// effect without a restart, on every instance sharing the database.
import type { Database } from "../contract/database.ts";
import type { SecretSealer } from "../contract/secret-sealer.ts";
import type { NotificationEvent, NotificationSettings } from "./notification-settings.ts";

export type Channel = "email" | "webhook";

export interface SavedEmail {
  /** Without its password: smtp://user@mail.example.org:587. */
  smtpUrl: string;
  from: string;
  to: string[];
  events: NotificationEvent[];
}

export interface SavedWebhook {
  url: string;
  events: NotificationEvent[];
}

/** What the page shows of a channel: never its secret, only whether and when one was saved. */
export interface SavedChannel<Settings> {
  settings: Settings;
  secretSetAt: Date | null;
  updatedAt: Date;
}

export interface SavedChannels {
  email: SavedChannel<SavedEmail> | null;
  webhook: SavedChannel<SavedWebhook> | null;
}

/** What a save does with the channel's secret: keep the saved one, forget it, or seal a new one. */
export type SecretChange = { keep: true } | { forget: true } | { replace: string };

interface ChannelRow {
  channel: Channel;
  settings: SavedEmail | SavedWebhook;
  secret: string | null;
  secret_set_at: Date | string | null;
  updated_at: Date | string;
}

/** Binds a sealed value to its channel: copied into the other row, it does not open. */
export const channelSecretData = (channel: Channel) => `notification-channel:${channel}/secret`;

/** The SMTP URL nodemailer is given: the saved one with the password put back. */
export function withPassword(smtpUrl: string, password: string | null): string {
  if (!password) return smtpUrl;
  const url = new URL(smtpUrl);
  url.password = encodeURIComponent(password);
  return url.href;
}

/** The SMTP URL as the page shows and stores it: any password taken out. */
export function withoutPassword(smtpUrl: string): { url: string; password: string | null } {
  const url = new URL(smtpUrl);
  const password = url.password ? decodeURIComponent(url.password) : null;
  url.password = "";
  return { url: url.href, password };
}

export class NotificationSettingsStore {
  constructor(
    private readonly database: Database,
    /** The host's secret box; null where there is none (then nothing can be saved). */
    private readonly sealer: () => SecretSealer | null,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether channels can be saved here (a secret box to seal their secrets with). */
  get available(): boolean {
    return this.sealer() !== null;
  }

  /** What the page shows: no secret, opened or sealed. */
  async saved(): Promise<SavedChannels> {
    const rows = await this.#rows();
    const channel = <S>(name: Channel): SavedChannel<S> | null => {
      const row = rows.find((one) => one.channel === name);
      return row
        ? {
            settings: row.settings as S,
            secretSetAt: row.secret_set_at === null ? null : new Date(row.secret_set_at),
            updatedAt: new Date(row.updated_at),
          }
        : null;
    };
    return { email: channel<SavedEmail>("email"), webhook: channel<SavedWebhook>("webhook") };
  }

  /** The saved channels as the notifier sends with them, secrets opened. */
  async settings(): Promise<NotificationSettings> {
    const settings: NotificationSettings = {};
    for (const row of await this.#rows()) {
      const secret =
        row.secret === null ? null : this.#box().open(row.secret, channelSecretData(row.channel));
      if (row.channel === "email") {
        const email = row.settings as SavedEmail;
        settings.email = {
          smtpUrl: withPassword(email.smtpUrl, secret),
          from: email.from,
          to: email.to,
          events: new Set(email.events),
        };
      } else {
        const webhook = row.settings as SavedWebhook;
        settings.webhook = { url: webhook.url, secret: secret ?? "", events: new Set(webhook.events) };
      }
    }
    return settings;
  }

  /** Saves the channel in one statement: the settings and the secret together, or nothing. */
  async save(channel: "email", settings: SavedEmail, secret: SecretChange): Promise<void>;
  async save(channel: "webhook", settings: SavedWebhook, secret: SecretChange): Promise<void>;
  async save(channel: Channel, settings: SavedEmail | SavedWebhook, secret: SecretChange): Promise<void> {
    const at = new Date(this.now());
    const json = JSON.stringify(settings);
    if ("keep" in secret) {
      await this.database.query(
        `INSERT INTO notification_channels (channel, settings, updated_at) VALUES ($1, $2::jsonb, $3)
         ON CONFLICT (channel) DO UPDATE SET settings = $2::jsonb, updated_at = $3`,
        [channel, json, at],
      );
      return;
    }
    const sealed = "replace" in secret ? this.#box().seal(secret.replace, channelSecretData(channel)) : null;
    await this.database.query(
      `INSERT INTO notification_channels (channel, settings, secret, secret_set_at, updated_at)
       VALUES ($1, $2::jsonb, $3, $4, $5)
       ON CONFLICT (channel) DO UPDATE SET settings = $2::jsonb, secret = $3, secret_set_at = $4, updated_at = $5`,
      [channel, json, sealed, sealed === null ? null : at, at],
    );
  }

  /** Turns the channel off (its secret goes with it); false when it was not saved. */
  async remove(channel: Channel): Promise<boolean> {
    const result = await this.database.query("DELETE FROM notification_channels WHERE channel = $1", [
      channel,
    ]);
    return result.rowCount > 0;
  }

  /** Seals every secret not under the current key again under it (`possekit rekey`); returns how many. */
  async rekey(): Promise<number> {
    const box = this.sealer();
    if (!box) return 0;
    return this.database.transaction(async (tx) => {
      const { rows } = await tx.query<{ channel: Channel; secret: string }>(
        "SELECT channel, secret FROM notification_channels WHERE secret IS NOT NULL FOR UPDATE",
      );
      let count = 0;
      for (const row of rows) {
        if (box.isCurrent(row.secret)) continue;
        const data = channelSecretData(row.channel);
        await tx.query("UPDATE notification_channels SET secret = $2 WHERE channel = $1", [
          row.channel,
          box.seal(box.open(row.secret, data), data),
        ]);
        count++;
      }
      return count;
    });
  }

  #box(): SecretSealer {
    const box = this.sealer();
    if (!box) throw new Error("Notification channels need the host's secret box, and there is none");
    return box;
  }

  async #rows(): Promise<ChannelRow[]> {
    const { rows } = await this.database.query<ChannelRow>(
      "SELECT channel, settings, secret, secret_set_at, updated_at FROM notification_channels ORDER BY channel",
    );
    return rows;
  }
}
