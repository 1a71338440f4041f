// Tells the user of a failure that needs them (decision 0050) by e-mail (SMTP, nodemailer) and by a
// signed JSON webhook out, each switchable per event. One message per failing streak of a (kind,
// target): the streak's row in the database (migration 015) is inserted by its first failure, and
// only that insert sends; later failures count. The target's first success after it deletes its
// rows and sends one "recovered" message. Deliveries happen beside the run, never in its way: a
// delivery that fails is logged in one line and not retried.
import { createHmac } from "node:crypto";
import nodemailer, { type Transporter } from "nodemailer";
import type { AccountNotice } from "../contract/account-flow.ts";
import type { Database } from "../contract/database.ts";
import type { Logger } from "../contract/logger.ts";
import { type OutgoingFetchPolicy, type SafeResponse, safeFetch } from "../net/safe-fetch.ts";
import type { FailureNotice, FailureNotices } from "../syndication/runs/failure-notices.ts";
import type { NotificationEvent, NotificationSettings } from "./notification-settings.ts";

/** The header that carries the webhook's signature: "sha256=" and the HMAC-SHA256 of the body. */
export const SIGNATURE_HEADER = "x-possekit-signature-256";

export interface Message {
  /** "test": sent by Send a test on the Notifications page. */
  event: NotificationEvent | "test";
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
    .replace(URL_OR_RUN, (_run, url: string | undefined) =>
      // A URL says where the failure was: it stays, but a long token inside one of its segments (a
      // webhook's secret path) does not; `/` is kept out of the run, so an ordinary path survives.
      url ? url.replace(/[A-Za-z0-9_\-+=.]{32,}/g, "[hidden]") : "[hidden]",
    );
}

/** A URL (group 1), or else a run of 32 or more characters a token is made of. */
const URL_OR_RUN = /(https?:\/\/[^\s"'<>]+)|[A-Za-z0-9_\-+/=.]{32,}/g;

const WHAT: Record<FailureNotice["kind"], (notice: FailureNotice) => string> = {
  refused: (n) => `${n.targetName} refused the credentials`,
  retries_exhausted: (n) => `${n.targetName} refused a post for good`,
  unknown_outcome: (n) => `${n.targetName}: nobody knows whether a post arrived`,
  paused_long: (n) => `${n.targetName} has been paused for more than a day`,
  expiring: (n) =>
    `${n.targetName}'s access ends ${n.expiresAt ? `on ${n.expiresAt.toISOString().slice(0, 10)}` : "soon"} and could not be renewed`,
};

const WHAT_TO_DO: Record<FailureNotice["kind"], (notice: FailureNotice) => string> = {
  refused: (n) =>
    `Posts wait and nothing is sent to it until a check succeeds. Fix ${n.setting ?? "its credentials"}, then click Check now on the syndication page.`,
  retries_exhausted: () =>
    "It is not tried again by itself. Fix the cause, then retry it on the syndication page.",
  unknown_outcome: () =>
    "Look on the target: then confirm the copy's address, or retry, on the syndication page.",
  paused_long: () => "Its posts are waiting. See the syndication page for why, and what to fix.",
  expiring: () =>
    "It is renewed by itself while the service allows it; it did not this time. Connect the account again on the Accounts page (Reconnect) before then, or its posts will wait.",
};

export interface NotifierDependencies {
  database: Database;
  /**
   * Where messages go: fixed, or read again at each delivery (the environment's channels over those
   * saved on the Notifications page), so that a save takes effect without a restart.
   */
  settings: NotificationSettings | (() => Promise<NotificationSettings>);
  logger: Logger;
  /** The outgoing-fetch rules the webhook is sent under (fetch.allowPrivate). */
  fetchPolicy: OutgoingFetchPolicy;
  /** The syndication page, named in every message. */
  pageUrl: string;
  /** The Accounts page, named in a refusal of a connected account; absent without one. */
  accountsUrl?: string;
}

export class Notifier implements FailureNotices {
  /** The SMTP connection of the URL it was made for; made again when the URL changes. */
  #transport: { smtpUrl: string; transport: Transporter } | undefined;
  readonly #pending = new Set<Promise<void>>();
  /** Targets with a streak this process opened or found: only they need a look on success. */
  readonly #open = new Set<string>();
  #loaded: Promise<void> | undefined;

  constructor(private readonly deps: NotifierDependencies) {}

  failure(notice: FailureNotice): void {
    this.#track(this.#failure(notice));
  }

  recovered(targetUid: string, targetName: string): void {
    this.#track(this.#recovered(targetUid, targetName));
  }

  /**
   * An account that needs the owner soon (a token about to end): its flow says when, once. The
   * flow writes the text (never a secret); it is not filtered, so that its links stay whole.
   */
  account(notice: AccountNotice): void {
    this.#track(
      this.#deliver({
        // One event for every credential about to end (Threads' renewal failing, LinkedIn's 60 days).
        event: "expiring",
        target: { uid: notice.targetUid, name: notice.targetName },
        subject: notice.subject,
        text: notice.text,
        at: new Date().toISOString(),
      }),
    );
  }

  /** Resolves when every delivery started so far has ended (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  close(): void {
    this.#transport?.transport.close();
    this.#transport = undefined;
  }

  #settings(): Promise<NotificationSettings> {
    const { settings } = this.deps;
    return typeof settings === "function" ? settings() : Promise.resolve(settings);
  }

  /** Whether any channel is on: with none, failures are not even counted (nothing would be told). */
  async #anyChannel(): Promise<boolean> {
    const { email, webhook } = await this.#settings();
    return email !== undefined || webhook !== undefined;
  }

  #transportFor(smtpUrl: string): Transporter {
    if (this.#transport?.smtpUrl !== smtpUrl) {
      this.#transport?.transport.close();
      this.#transport = { smtpUrl, transport: nodemailer.createTransport(smtpUrl) };
    }
    return this.#transport.transport;
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
    if (!(await this.#anyChannel())) return;
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
    const { email, webhook } = await this.#settings();
    const event = message.event as NotificationEvent;
    await Promise.all([
      email?.events.has(event)
        ? this.#transportFor(email.smtpUrl)
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
      webhook?.events.has(event)
        ? postMessage(webhook.url, webhook.secret, message, this.deps.fetchPolicy)
            .then((response) => {
              if (!response.ok)
                throw new Error(`${webhook.url} answered ${response.status} ${response.statusText}`.trim());
            })
            .catch((error: unknown) => this.#failed("webhook", error))
        : undefined,
    ]);
  }

  #failed(channel: string, error: unknown): void {
    this.deps.logger.warn(`A notification by ${channel} could not be delivered`, {
      error: withoutSecrets(error instanceof Error ? error.message : String(error)),
    });
  }
}

/** One message POSTed to a webhook, signed; the answer whatever its status (a test reports it). */
export function postMessage(
  url: string,
  secret: string,
  message: Message,
  policy: OutgoingFetchPolicy,
): Promise<SafeResponse> {
  const body = JSON.stringify(message);
  return safeFetch(url, {
    policy,
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
}

/** The signature header's value for a body: "sha256=" and the hex HMAC-SHA256 under `secret`. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}
