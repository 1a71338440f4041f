// Where notifications go, from environment variables (docs/notifications.md has the table). A
// mistake stops the start with one line naming the variable and what to write instead.
import { z } from "zod";
import type { NoticeKind } from "../syndication/runs/failure-notices.ts";

export type NotificationEvent = NoticeKind | "recovered";
export const NOTIFICATION_EVENTS: readonly NotificationEvent[] = [
  "refused",
  "retries_exhausted",
  "unknown_outcome",
  "paused_long",
  "expiring",
  "recovered",
];

export interface NotificationSettings {
  email?: {
    /** nodemailer's connection URL: smtp://user:password@host:587 or smtps://…:465. */
    smtpUrl: string;
    from: string;
    to: string[];
    events: ReadonlySet<NotificationEvent>;
  };
  webhook?: {
    url: string;
    /** The HMAC-SHA256 key of the signature header. */
    secret: string;
    events: ReadonlySet<NotificationEvent>;
  };
}

export class NotificationSettingsError extends Error {}

const address = z.email();

function fail(name: string, what: string): never {
  throw new NotificationSettingsError(`${name} ${what}`);
}

function events(env: NodeJS.ProcessEnv, name: string): ReadonlySet<NotificationEvent> {
  const value = env[name]?.trim();
  if (!value) return new Set(NOTIFICATION_EVENTS);
  const chosen = value.split(",").map((word) => word.trim());
  for (const word of chosen)
    if (!NOTIFICATION_EVENTS.includes(word as NotificationEvent))
      fail(name, `names "${word}", which is no event: write some of ${NOTIFICATION_EVENTS.join(",")}`);
  return new Set(chosen as NotificationEvent[]);
}

/** The settings in `env`; throws NotificationSettingsError (one line) on a mistake. */
export function notificationSettings(env: NodeJS.ProcessEnv, siteUrl: string): NotificationSettings {
  const settings: NotificationSettings = {};
  const smtpUrl = env.NOTIFY_SMTP_URL?.trim();
  const to = env.NOTIFY_EMAIL_TO?.trim();
  if (smtpUrl || to) {
    if (!smtpUrl)
      fail(
        "NOTIFY_EMAIL_TO",
        "is set but NOTIFY_SMTP_URL is not: write e.g. smtp://user:password@mail.example.org:587",
      );
    if (!URL.canParse(smtpUrl) || !/^smtps?:$/.test(new URL(smtpUrl).protocol) || !new URL(smtpUrl).hostname)
      fail(
        "NOTIFY_SMTP_URL",
        "must be an smtp:// or smtps:// URL, e.g. smtp://user:password@mail.example.org:587",
      );
    if (!to)
      fail(
        "NOTIFY_SMTP_URL",
        "is set but NOTIFY_EMAIL_TO is not: write the address to notify, e.g. me@example.org",
      );
    const recipients = to.split(",").map((one) => one.trim());
    for (const one of recipients)
      if (!address.safeParse(one).success)
        fail("NOTIFY_EMAIL_TO", `has "${one}", which is not an e-mail address`);
    const from = env.NOTIFY_EMAIL_FROM?.trim() || `possekit@${new URL(siteUrl).hostname}`;
    if (!address.safeParse(from).success)
      fail("NOTIFY_EMAIL_FROM", `must be an e-mail address, e.g. possekit@${new URL(siteUrl).hostname}`);
    settings.email = { smtpUrl, from, to: recipients, events: events(env, "NOTIFY_EMAIL_EVENTS") };
  }
  const webhook = env.NOTIFY_WEBHOOK_URL?.trim();
  if (webhook) {
    if (!URL.canParse(webhook) || !/^https?:$/.test(new URL(webhook).protocol))
      fail("NOTIFY_WEBHOOK_URL", "must be an http(s) URL, e.g. https://hooks.example.org/possekit");
    const secret = env.NOTIFY_WEBHOOK_SECRET?.trim() ?? "";
    if (secret.length < 16)
      fail(
        "NOTIFY_WEBHOOK_SECRET",
        "must be set, 16 characters or more (e.g. openssl rand -hex 32), to sign the webhook",
      );
    settings.webhook = { url: webhook, secret, events: events(env, "NOTIFY_WEBHOOK_EVENTS") };
  }
  return settings;
}

/**
 * The channels messages go to: each one set in the environment as it says there (the page shows it
 * as managed there), else as saved on the Notifications page.
 */
export function effectiveSettings(
  environment: NotificationSettings,
  saved: NotificationSettings,
): NotificationSettings {
  const email = environment.email ?? saved.email;
  const webhook = environment.webhook ?? saved.webhook;
  return { ...(email ? { email } : {}), ...(webhook ? { webhook } : {}) };
}
