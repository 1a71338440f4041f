// Where notifications go, read from NOTIFY_* variables: what each one means when written, what it
// means when left out, and each mistake as the one line that names the variable and what to write.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  effectiveSettings,
  NOTIFICATION_EVENTS,
  type NotificationSettings,
  NotificationSettingsError,
  notificationSettings,
} from "./notification-settings.ts";

const SITE = "https://blog.example.org/";
const SECRET = "0123456789abcdef";
const EVERY = ["refused", "retries_exhausted", "unknown_outcome", "paused_long", "expiring", "recovered"];

describe("notification settings from the environment", () => {
  it("e-mail: trimmed, several addresses, sent from possekit@ the site's host, every event", () => {
    const { email, webhook } = notificationSettings(
      {
        NOTIFY_SMTP_URL: " smtp://u:p@mail.example.org:587 ",
        NOTIFY_EMAIL_TO: " a@example.org , b@example.org ",
        NOTIFY_EMAIL_EVENTS: "  ",
      },
      SITE,
    );
    assert.equal(webhook, undefined);
    assert.ok(email);
    assert.equal(email.smtpUrl, "smtp://u:p@mail.example.org:587");
    assert.equal(email.from, "possekit@blog.example.org");
    assert.deepEqual(email.to, ["a@example.org", "b@example.org"]);
    assert.deepEqual([...email.events], EVERY);
    assert.deepEqual([...NOTIFICATION_EVENTS], EVERY);
  });

  it("e-mail over smtps, from the address given, for the events named", () => {
    const { email } = notificationSettings(
      {
        NOTIFY_SMTP_URL: "smtps://mail.example.org:465",
        NOTIFY_EMAIL_TO: "me@example.org",
        NOTIFY_EMAIL_FROM: " robot@example.org ",
        NOTIFY_EMAIL_EVENTS: " refused , recovered",
      },
      SITE,
    );
    assert.equal(email?.from, "robot@example.org");
    assert.deepEqual([...(email?.events ?? [])], ["refused", "recovered"]);
  });

  it("webhook: http or https, a secret of 16 characters or more, trimmed", () => {
    const { email, webhook } = notificationSettings(
      { NOTIFY_WEBHOOK_URL: " http://hooks.example.org/p ", NOTIFY_WEBHOOK_SECRET: ` ${SECRET} ` },
      SITE,
    );
    assert.equal(email, undefined);
    assert.equal(webhook?.url, "http://hooks.example.org/p");
    assert.equal(webhook?.secret, SECRET);
    assert.deepEqual([...(webhook?.events ?? [])], EVERY);
    const chosen = notificationSettings(
      {
        NOTIFY_WEBHOOK_URL: "https://hooks.example.org/p",
        NOTIFY_WEBHOOK_SECRET: SECRET,
        NOTIFY_WEBHOOK_EVENTS: "expiring",
      },
      SITE,
    );
    assert.deepEqual([...(chosen.webhook?.events ?? [])], ["expiring"]);
  });

  const mail = { NOTIFY_SMTP_URL: "smtp://mail.example.org", NOTIFY_EMAIL_TO: "me@example.org" };
  const hook = { NOTIFY_WEBHOOK_URL: "https://hooks.example.org/p", NOTIFY_WEBHOOK_SECRET: SECRET };
  const SMTP_URL =
    "NOTIFY_SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtp://user:password@mail.example.org:587";
  const HOOK_URL = "NOTIFY_WEBHOOK_URL must be an http(s) URL, e.g. https://hooks.example.org/possekit";
  const mistakes: [Record<string, string>, string][] = [
    [
      { NOTIFY_EMAIL_TO: "me@example.org" },
      "NOTIFY_EMAIL_TO is set but NOTIFY_SMTP_URL is not: write e.g. smtp://user:password@mail.example.org:587",
    ],
    [{ ...mail, NOTIFY_SMTP_URL: "mail.example.org" }, SMTP_URL],
    [{ ...mail, NOTIFY_SMTP_URL: "http://mail.example.org" }, SMTP_URL],
    [{ ...mail, NOTIFY_SMTP_URL: "xsmtp://mail.example.org" }, SMTP_URL],
    [{ ...mail, NOTIFY_SMTP_URL: "smtp://" }, SMTP_URL],
    [
      { NOTIFY_SMTP_URL: "smtp://mail.example.org", NOTIFY_EMAIL_TO: " " },
      "NOTIFY_SMTP_URL is set but NOTIFY_EMAIL_TO is not: write the address to notify, e.g. me@example.org",
    ],
    [
      { ...mail, NOTIFY_EMAIL_TO: "a@example.org, me" },
      'NOTIFY_EMAIL_TO has "me", which is not an e-mail address',
    ],
    [
      { ...mail, NOTIFY_EMAIL_FROM: "possekit" },
      "NOTIFY_EMAIL_FROM must be an e-mail address, e.g. possekit@blog.example.org",
    ],
    [
      { ...mail, NOTIFY_EMAIL_EVENTS: "refused,all" },
      'NOTIFY_EMAIL_EVENTS names "all", which is no event: write some of refused,retries_exhausted,unknown_outcome,paused_long,expiring,recovered',
    ],
    [{ ...hook, NOTIFY_WEBHOOK_URL: "hooks.example.org" }, HOOK_URL],
    [{ ...hook, NOTIFY_WEBHOOK_URL: "ftp://hooks.example.org/" }, HOOK_URL],
    [{ ...hook, NOTIFY_WEBHOOK_URL: "xhttps://hooks.example.org/" }, HOOK_URL],
    [
      { NOTIFY_WEBHOOK_URL: "https://hooks.example.org/p" },
      "NOTIFY_WEBHOOK_SECRET must be set, 16 characters or more (e.g. openssl rand -hex 32), to sign the webhook",
    ],
    [
      { ...hook, NOTIFY_WEBHOOK_SECRET: SECRET.slice(1) },
      "NOTIFY_WEBHOOK_SECRET must be set, 16 characters or more (e.g. openssl rand -hex 32), to sign the webhook",
    ],
    [
      { ...hook, NOTIFY_WEBHOOK_EVENTS: "recovered, paused" },
      'NOTIFY_WEBHOOK_EVENTS names "paused", which is no event: write some of refused,retries_exhausted,unknown_outcome,paused_long,expiring,recovered',
    ],
  ];
  for (const [env, line] of mistakes)
    it(`refuses ${JSON.stringify(env)} in one line naming what to write`, () => {
      assert.throws(
        () => notificationSettings(env, SITE),
        (error: unknown) => error instanceof NotificationSettingsError && error.message === line,
      );
    });
});

describe("the channels messages go to", () => {
  const fromEnvironment: NotificationSettings = {
    email: { smtpUrl: "smtp://env.example", from: "a@example.org", to: ["b@example.org"], events: new Set() },
  };
  const saved: NotificationSettings = {
    email: {
      smtpUrl: "smtp://saved.example",
      from: "c@example.org",
      to: ["d@example.org"],
      events: new Set(),
    },
    webhook: { url: "https://hooks.example.org/", secret: SECRET, events: new Set() },
  };

  it("each channel set in the environment as it says there, else as saved on the page", () => {
    assert.deepEqual(effectiveSettings(fromEnvironment, saved), {
      email: fromEnvironment.email,
      webhook: saved.webhook,
    });
    assert.deepEqual(effectiveSettings({}, saved), saved);
    assert.deepEqual(effectiveSettings(fromEnvironment, {}), fromEnvironment);
  });

  it("no channel anywhere is no channel at all, not an empty one", () => {
    assert.deepEqual(Object.keys(effectiveSettings({}, {})), []);
  });
});
