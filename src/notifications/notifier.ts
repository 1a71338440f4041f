// Tells the user of a failure that needs them (decision 0050) by e-mail (SMTP, nodemailer) and by a
// signed JSON webhook out, each switchable per event. One message per failing streak of a (kind,
// target): the streak's row in the database (migration 015) is inserted by its first failure, and
// only that insert sends; later failures count. The target's first success after it deletes its
// rows and sends one "recovered" message. Deliveries happen beside the run, never in its way: a
// delivery that fails is logged in one line and not retried.
import { createHmac } from "node:crypto";
import nodemailer, { type Transporter } from "nodemailer";
import type { Database } from "../contract/database.ts";
import type { Logger } from "../contract/logger.ts";
import type { OutgoingFetchPolicy } from "../net/safe-fetch.ts";
import { safeFetch } from "../net/safe-fetch.ts";
import type { FailureNotice, FailureNotices } from "../syndication/failure-notices.ts";
import type { NotificationEvent, NotificationSettings } from "./notification-settings.ts";

/** The header that carries the webhook's signature: "sha256=" and the HMAC-SHA256 of the body. */
export const SIGNATURE_HEADER = "x-possekit-signature-256";

export interface Message {
  event: NotificationEvent;
  target: { uid: string; name: string };
  /** One line: what happened. */
  subject: string;
  /** What happened and what to do, a few lines. */
  text: string;
  post_url?: string;
  error?: string;
  at: string;
}

/**
 * A service's error may echo what it was sent. Anything that looks like a credential is cut out:
 * a bearer or basic value, a token/password/secret parameter, and any long unbroken run of
 * letters and digits (an access token, an app password's hash).
 */
export function withoutSecrets(text: string): string {
  return text
    .replace(/\b(bearer|basic)\s+\S+/gi, "$1 [hidden]")
    .replace(
      /\b(access_token|token|password|secret|apikey|api_key|key)(["']?\s*[=:]\s*["']?)[^\s"'&,;]+/gi,
      "$1$2[hidden]",
    )
    .replace(/[A-Za-z0-9_\-+/=.]{32,}/g, (run) => (/^https?:/.test(run) ? run : "[hidden]"));
}

const WHAT: Record<FailureNotice["kind"], (notice: FailureNotice) => string> = {
  refused: (n) => `${n.targetName} refused the credentials`,
  retries_exhausted: (n) => `${n.targetName} refused a post for good`,
  unknown_outcome: (n) => `${n.targetName}: nobody knows whether a post arrived`,
  paused_long: (n) => `${n.targetName} has been paused for more than a day`,
};

const WHAT_TO_DO: Record<FailureNotice["kind"], (notice: FailureNotice) => string> = {
  refused: (n) =>
    `Posts wait and nothing is sent to it until a check succeeds. Fix ${n.setting ?? "its credentials"}, then click Check now on the syndication page.`,
  retries_exhausted: () =>
    "It is not tried again by itself. Fix the cause, then retry it on the syndication page.",
  unknown_outcome: () =>
    "Look on the target: then confirm the copy's address, or retry, on the syndication page.",
  paused_long: () => "Its posts are waiting. See the syndication page for why, and what to fix.",
};

export interface NotifierDependencies {
  database: Database;
  settings: NotificationSettings;
  logger: Logger;
  /** The outgoing-fetch rules the webhook is sent under (fetch.allowPrivate). */
  fetchPolicy: OutgoingFetchPolicy;
  /** The syndication page, named in every message. */
  pageUrl: string;
  /** The Accounts page, named in a refusal of a connected account; absent without one. */
  accountsUrl?: string;
}

export class Notifier implements FailureNotices {
  readonly #transport: Transporter | undefined;
  readonly #pending = new Set<Promise<void>>();
  /** Targets with a streak this process opened or found: only they need a look on success. */
  readonly #open = new Set<string>();
  #loaded: Promise<void> | undefined;

  constructor(private readonly deps: NotifierDependencies) {
    const email = deps.settings.email;
    this.#transport = email ? nodemailer.createTransport(email.smtpUrl) : undefined;
  }

  failure(notice: FailureNotice): void {
    this.#track(this.#failure(notice));
  }

  recovered(targetUid: string, targetName: string): void {
    this.#track(this.#recovered(targetUid, targetName));
  }

  /** Resolves when every delivery started so far has ended (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  close(): void {
    this.#transport?.close();
  }

  #track(work: Promise<void>): void {
    const guarded = work.catch((error: unknown) => {
      this.deps.logger.warn("A notification could not be handled", {
        error: error instanceof Error ? error.message : String(error),
      });
    });
    this.#pending.add(guarded);
    void guarded.finally(() => this.#pending.delete(guarded));
  }

  async #failure(notice: FailureNotice): Promise<void> {
    await this.#loadOpen();
    this.#open.add(notice.targetUid);
    const { rows } = await this.deps.database.query<{ failures: number }>(
      `INSERT INTO syndication_notification_streaks AS s (kind, target_uid) VALUES ($1, $2)
       ON CONFLICT (target_uid, kind) DO UPDATE SET failures = s.failures + 1, last_at = now()
       RETURNING failures`,
      [notice.kind, notice.targetUid],
    );
    if (rows[0]?.failures !== 1) return;
    const error = withoutSecrets(notice.error);
    await this.#deliver({
      event: notice.kind,
      target: { uid: notice.targetUid, name: notice.targetName },
      subject: WHAT[notice.kind](notice),
      text: [
        `${WHAT[notice.kind](notice)}: ${error}`,
        ...(notice.postUrl ? [`Post: ${notice.postUrl}`] : []),
        this.#whatToDo(notice),
        `Syndication page: ${this.deps.pageUrl}`,
        "You are told once per failing streak, and once when it recovers.",
      ].join("\n\n"),
      ...(notice.postUrl ? { post_url: notice.postUrl } : {}),
      error,
      at: new Date().toISOString(),
    });
  }

  /** A connected account is fixed on the Accounts page, and reconnecting releases its posts. */
  #whatToDo(notice: FailureNotice): string {
    if (notice.kind === "refused" && notice.reconnect === true)
      return [
        `${notice.targetName} (${notice.targetUid}) is an account connected on the Accounts page. Its posts wait, and go out by themselves once it is reconnected: click Reconnect beside it there.`,
        ...(this.deps.accountsUrl ? [`Accounts page: ${this.deps.accountsUrl}`] : []),
      ].join("\n\n");
    return WHAT_TO_DO[notice.kind](notice);
  }

  async #recovered(targetUid: string, targetName: string): Promise<void> {
    await this.#loadOpen();
    if (!this.#open.has(targetUid)) return;
    this.#open.delete(targetUid);
    const { rows } = await this.deps.database.query<{ kind: string }>(
      "DELETE FROM syndication_notification_streaks WHERE target_uid = $1 RETURNING kind",
      [targetUid],
    );
    if (rows.length === 0) return;
    await this.#deliver({
      event: "recovered",
      target: { uid: targetUid, name: targetName },
      subject: `${targetName} works again`,
      text: [
        `${targetName} works again: it took a post or passed a check. Waiting posts are sent by the next run.`,
        `Syndication page: ${this.deps.pageUrl}`,
      ].join("\n\n"),
      at: new Date().toISOString(),
    });
  }

  /** The streaks left open by an earlier process (or another instance at start). */
  #loadOpen(): Promise<void> {
    this.#loaded ??= this.deps.database
      .query<{ target_uid: string }>("SELECT DISTINCT target_uid FROM syndication_notification_streaks")
      .then(({ rows }) => {
        for (const row of rows) this.#open.add(row.target_uid);
      });
    return this.#loaded;
  }

  async #deliver(message: Message): Promise<void> {
    const { email, webhook } = this.deps.settings;
    await Promise.all([
      email && this.#transport && email.events.has(message.event)
        ? this.#transport
            .sendMail({
              from: email.from,
              to: email.to,
              subject: `possekit: ${message.subject}`,
              text: message.text,
            })
            .then(
              () => {},
              (error: unknown) => this.#failed("e-mail", error),
            )
        : undefined,
      webhook?.events.has(message.event)
        ? this.#post(webhook.url, webhook.secret, message).catch((error: unknown) =>
            this.#failed("webhook", error),
          )
        : undefined,
    ]);
  }

  async #post(url: string, secret: string, message: Message): Promise<void> {
    const body = JSON.stringify(message);
    const response = await safeFetch(url, {
      policy: this.deps.fetchPolicy,
      method: "POST",
      body,
      maxBytes: 16 * 1024,
      overflow: "truncate",
      timeoutMs: 10_000,
      headers: {
        "content-type": "application/json",
        [SIGNATURE_HEADER]: signature(secret, body),
      },
    });
    if (!response.ok) throw new Error(`${url} answered ${response.status} ${response.statusText}`.trim());
  }

  #failed(channel: string, error: unknown): void {
    this.deps.logger.warn(`A notification by ${channel} could not be delivered`, {
      error: withoutSecrets(error instanceof Error ? error.message : String(error)),
    });
  }
}

/** The signature header's value for a body: "sha256=" and the hex HMAC-SHA256 under `secret`. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}
