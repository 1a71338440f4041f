// "Send a test" on the Notifications page, and the check of an SMTP server before its settings are
// saved: what the SMTP server or the webhook answered, word for word (the SMTP reply's code and
// text, the HTTP status), with anything that looks like a credential cut out.
import nodemailer from "nodemailer";
import type { OutgoingFetchPolicy } from "../net/safe-fetch.ts";
import type { NotificationSettings } from "./notification-settings.ts";
import { type Message, postMessage, withoutSecrets } from "./notifier.ts";

/** What the other side said: `answer` is its reply (or why there was none), shown as it is. */
export interface TestAnswer {
  ok: boolean;
  answer: string;
}

/** How long an SMTP server may take to greet, and to answer each command. */
const SMTP_TIMEOUT_MS = 10_000;

function transportFor(smtpUrl: string) {
  return nodemailer.createTransport({
    url: smtpUrl,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  });
}

/** nodemailer's error: the server's own reply when it gave one, else what went wrong on the way. */
function smtpFailure(error: unknown): TestAnswer {
  const reply = (error as { response?: unknown }).response;
  const text =
    typeof reply === "string" && reply ? reply : error instanceof Error ? error.message : String(error);
  return { ok: false, answer: withoutSecrets(text) };
}

/** Connects, greets and logs in as the URL says, sending nothing: whether the server answers. */
export async function checkSmtpServer(smtpUrl: string): Promise<TestAnswer> {
  const transport = transportFor(smtpUrl);
  try {
    await transport.verify();
    return { ok: true, answer: "" };
  } catch (error) {
    return smtpFailure(error);
  } finally {
    transport.close();
  }
}

export function testMessage(pageUrl: string, at: Date): Message {
  return {
    event: "test",
    target: { uid: pageUrl, name: "possekit" },
    subject: "a test notification",
    text: [
      "This is a test, sent from the Notifications page. Notifications reach you here.",
      `Syndication page: ${pageUrl}`,
    ].join("\n\n"),
    at: at.toISOString(),
  };
}

/** Sends `message` by e-mail now: the SMTP server's reply to the message (e.g. "250 OK: queued"). */
export async function sendTestEmail(
  email: NonNullable<NotificationSettings["email"]>,
  message: Message,
): Promise<TestAnswer> {
  const transport = transportFor(email.smtpUrl);
  try {
    const info = await transport.sendMail({
      from: email.from,
      to: email.to,
      subject: `possekit: ${message.subject}`,
      text: message.text,
    });
    return { ok: true, answer: withoutSecrets(String(info.response ?? "")) };
  } catch (error) {
    return smtpFailure(error);
  } finally {
    transport.close();
  }
}

/** POSTs `message` to the webhook now: its HTTP status and reason ("204 No Content"). */
export async function sendTestWebhook(
  webhook: NonNullable<NotificationSettings["webhook"]>,
  message: Message,
  policy: OutgoingFetchPolicy,
): Promise<TestAnswer> {
  try {
    const response = await postMessage(webhook.url, webhook.secret, message, policy);
    return { ok: response.ok, answer: `${response.status} ${response.statusText}`.trim() };
  } catch (error) {
    return { ok: false, answer: withoutSecrets(error instanceof Error ? error.message : String(error)) };
  }
}
