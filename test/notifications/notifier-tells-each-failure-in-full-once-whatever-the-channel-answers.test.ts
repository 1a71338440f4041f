// Decision 0050, read word for word: what each kind of failure tells the owner (the whole mail as a
// real SMTP server on 127.0.0.1 receives it, the whole webhook body and its signature), once per
// failing streak shared by every instance on the database, only on the channels and events switched
// on, and what happens when a channel refuses the delivery or the settings cannot be read (a warning
// in the log, never a throw, never a retry).
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import type { Logger } from "../../src/contract/logger.ts";
import {
  NOTIFICATION_EVENTS,
  type NotificationEvent,
  type NotificationSettings,
} from "../../src/notifications/notification-settings.ts";
import { Notifier, SIGNATURE_HEADER } from "../../src/notifications/notifier.ts";
import type { FailureNotice } from "../../src/syndication/runs/failure-notices.ts";
import { engines } from "../helpers/databases.ts";
import { type Mail, startSmtp, type TestSmtp, textOf } from "../helpers/smtp-server.ts";

const SECRET = "a-webhook-secret-of-32-characters!";
const TOKEN = "Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG8";
const PAGE = "https://example.org/syndicate";
const ACCOUNTS = "https://example.org/syndicate/accounts";
const FOOTER = `Syndication page: ${PAGE}\n\nYou are told once per failing streak, and once when it recovers.`;

interface Call {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Hook {
  server: Server;
  url: string;
  calls: Call[];
  /** What the next requests are answered. */
  answer: { status: number; body: string };
}

function startHook(): Promise<Hook> {
  const calls: Call[] = [];
  const answer = { status: 204, body: "" };
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    request.on("end", () => {
      calls.push({ method: request.method ?? "", path: request.url ?? "", headers: request.headers, body });
      response
        .writeHead(answer.status, { "content-length": Buffer.byteLength(answer.body) })
        .end(answer.body);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${port}/hook`, calls, answer });
    });
  });
}

/** The mail's subject and text, as the owner's mail program shows them. */
function read(mail: Mail): { subject: string; text: string } {
  const raw = textOf(mail);
  const end = raw.indexOf("\r\n\r\n");
  const headers = raw.slice(0, end).replace(/\r\n(?=[ \t])/g, "");
  return {
    subject: /^Subject: (.*)$/m.exec(headers)?.[1] ?? "",
    text: raw
      .slice(end + 4)
      .replace(/\r\n/g, "\n")
      .replace(/\n+$/, ""),
  };
}

interface Body {
  event: string;
  target: { uid: string; name: string };
  subject: string;
  text: string;
  post_url?: string;
  error?: string;
  at: string;
}

const all = (): ReadonlySet<NotificationEvent> => new Set(NOTIFICATION_EVENTS);

function recording(): { logger: Logger; warnings: { message: string; fields?: Record<string, unknown> }[] } {
  const warnings: { message: string; fields?: Record<string, unknown> }[] = [];
  const none = () => {};
  return {
    warnings,
    logger: {
      debug: none,
      info: none,
      error: none,
      warn: (message, fields) => void warnings.push({ message, fields }),
    },
  };
}

for (const engine of engines) {
  describe(`a notification says in full what failed and what to do, once (${engine.name})`, () => {
    let database: Database;
    let smtp: TestSmtp;
    let hook: Hook;
    before(async () => {
      database = await engine.open();
      const { migrate } = await import("../../src/server/database/migrate.ts");
      const { postMigrations } = await import("../../src/server/posts/migrations.ts");
      const { syndicationMigrations } = await import("../../src/syndication/migrations.ts");
      // The streaks' table is the core's (PGlite's snapshot has it; PostgreSQL's schema starts empty).
      await migrate(database, [...postMigrations, ...syndicationMigrations]);
      smtp = await startSmtp();
      hook = await startHook();
    });
    after(async () => {
      await database.close();
      await smtp.close();
      await new Promise((resolve) => hook.server.close(() => resolve(undefined)));
    });

    const both = (): NotificationSettings => ({
      email: {
        smtpUrl: `smtp://127.0.0.1:${smtp.port}`,
        from: "possekit@example.org",
        to: ["me@example.org"],
        events: all(),
      },
      webhook: { url: hook.url, secret: SECRET, events: all() },
    });
    const notifierWith = (
      settings: NotifierSettings,
      extra: { accountsUrl?: string; logger?: Logger } = {},
    ): Notifier =>
      new Notifier({
        database,
        settings,
        logger: extra.logger ?? recording().logger,
        fetchPolicy: { allowPrivate: true },
        pageUrl: PAGE,
        ...(extra.accountsUrl ? { accountsUrl: extra.accountsUrl } : {}),
      });
    type NotifierSettings = ConstructorParameters<typeof Notifier>[0]["settings"];

    /** Tells `notice` and waits: the mail and the webhook body it caused, if any. */
    const tell = async (notifier: Notifier, notice: FailureNotice) => {
      const mails = smtp.mails.length;
      const calls = hook.calls.length;
      const from = Date.now();
      notifier.failure(notice);
      await notifier.idle();
      const mail = smtp.mails.length > mails ? read(smtp.mails.at(-1) as Mail) : undefined;
      const call = hook.calls.length > calls ? hook.calls.at(-1) : undefined;
      if (call) {
        const at = Date.parse((JSON.parse(call.body) as Body).at);
        assert.ok(at >= from - 1000 && at <= Date.now() + 1000, "the message says when");
      }
      return {
        mail,
        call,
        body: call ? ({ ...(JSON.parse(call.body) as Body), at: "" } as Body) : undefined,
      };
    };

    const kinds: { notice: FailureNotice; subject: string; text: string; error: string }[] = [
      {
        notice: {
          kind: "refused",
          targetUid: "https://a.example/@me",
          targetName: "A",
          error: "A: 401 The access token is invalid",
          setting: "MASTODON_ACCESS_TOKEN",
        },
        subject: "A refused the credentials",
        error: "A: 401 The access token is invalid",
        text: `A refused the credentials: A: 401 The access token is invalid\n\nPosts wait and nothing is sent to it until a check succeeds. Fix MASTODON_ACCESS_TOKEN, then click Check now on the syndication page.\n\n${FOOTER}`,
      },
      {
        notice: { kind: "refused", targetUid: "b", targetName: "B", error: "403", reconnect: false },
        subject: "B refused the credentials",
        error: "403",
        text: `B refused the credentials: 403\n\nPosts wait and nothing is sent to it until a check succeeds. Fix its credentials, then click Check now on the syndication page.\n\n${FOOTER}`,
      },
      {
        notice: { kind: "refused", targetUid: "bsky-1", targetName: "Sky", error: "401", reconnect: true },
        subject: "Sky refused the credentials",
        error: "401",
        text: `Sky refused the credentials: 401\n\nSky (bsky-1) is an account connected on the Accounts page. Its posts wait, and go out by themselves once it is reconnected: click Reconnect beside it there.\n\nAccounts page: ${ACCOUNTS}\n\n${FOOTER}`,
      },
      {
        notice: {
          kind: "retries_exhausted",
          targetUid: "c",
          targetName: "C",
          error: `C: 422 Validation failed (access_token=${TOKEN})`,
          postUrl: "https://example.org/posts/1",
        },
        subject: "C refused a post for good",
        // The hidden value runs to a space, a quote or a separator: a password may hold a ")".
        error: "C: 422 Validation failed (access_token=[hidden]",
        text: `C refused a post for good: C: 422 Validation failed (access_token=[hidden]\n\nPost: https://example.org/posts/1\n\nIt is not tried again by itself. Fix the cause, then retry it on the syndication page.\n\n${FOOTER}`,
      },
      {
        notice: { kind: "unknown_outcome", targetUid: "d", targetName: "D", error: "timed out" },
        subject: "D: nobody knows whether a post arrived",
        error: "timed out",
        text: `D: nobody knows whether a post arrived: timed out\n\nLook on the target: then confirm the copy's address, or retry, on the syndication page.\n\n${FOOTER}`,
      },
      {
        notice: { kind: "paused_long", targetUid: "e", targetName: "E", error: "429" },
        subject: "E has been paused for more than a day",
        error: "429",
        text: `E has been paused for more than a day: 429\n\nIts posts are waiting. See the syndication page for why, and what to fix.\n\n${FOOTER}`,
      },
      {
        notice: {
          kind: "expiring",
          targetUid: "f",
          targetName: "F",
          error: "renewal refused",
          expiresAt: new Date("2026-12-01T23:30:00Z"),
        },
        subject: "F's access ends on 2026-12-01 and could not be renewed",
        error: "renewal refused",
        text: `F's access ends on 2026-12-01 and could not be renewed: renewal refused\n\nIt is renewed by itself while the service allows it; it did not this time. Connect the account again on the Accounts page (Reconnect) before then, or its posts will wait.\n\n${FOOTER}`,
      },
      {
        notice: { kind: "expiring", targetUid: "g", targetName: "G", error: "no date" },
        subject: "G's access ends soon and could not be renewed",
        error: "no date",
        text: `G's access ends soon and could not be renewed: no date\n\nIt is renewed by itself while the service allows it; it did not this time. Connect the account again on the Accounts page (Reconnect) before then, or its posts will wait.\n\n${FOOTER}`,
      },
    ];

    it("each kind's mail and webhook say what failed and what to do, word for word, signed", async () => {
      const notifier = notifierWith(both(), { accountsUrl: ACCOUNTS });
      for (const { notice, subject, text, error } of kinds) {
        const { mail, call, body } = await tell(notifier, notice);
        assert.deepEqual(mail, { subject: `possekit: ${subject}`, text }, notice.targetName);
        assert.deepEqual(smtp.mails.at(-1)?.to, ["me@example.org"]);
        assert.match(textOf(smtp.mails.at(-1) as Mail), /^From: possekit@example\.org$/m);
        assert.ok(call);
        assert.equal(call.method, "POST");
        assert.equal(call.path, "/hook");
        assert.equal(call.headers["content-type"], "application/json");
        assert.equal(
          call.headers[SIGNATURE_HEADER],
          `sha256=${createHmac("sha256", SECRET).update(call.body).digest("hex")}`,
        );
        assert.deepEqual(body, {
          event: notice.kind,
          target: { uid: notice.targetUid, name: notice.targetName },
          subject,
          text,
          ...(notice.postUrl ? { post_url: notice.postUrl } : {}),
          error,
          at: "",
        });
      }
      notifier.close();
    });

    it("a connected account's refusal without an Accounts page says where, without a link", async () => {
      const notifier = notifierWith(both());
      const { mail } = await tell(notifier, {
        kind: "refused",
        targetUid: "threads-1",
        targetName: "Threads",
        error: "401",
        reconnect: true,
      });
      assert.equal(
        mail?.text,
        `Threads refused the credentials: 401\n\nThreads (threads-1) is an account connected on the Accounts page. Its posts wait, and go out by themselves once it is reconnected: click Reconnect beside it there.\n\n${FOOTER}`,
      );
      notifier.close();
    });

    it("one message per streak of a (kind, target), shared by every instance; one recovery, by whoever sees it first", async () => {
      const first = notifierWith(both());
      const second = notifierWith(both());
      const notice: FailureNotice = { kind: "unknown_outcome", targetUid: "h", targetName: "H", error: "e" };
      assert.ok((await tell(first, notice)).mail);
      assert.equal((await tell(second, notice)).mail, undefined, "the other instance knows of the streak");
      assert.equal((await tell(first, notice)).call, undefined);
      // Another kind of failure of the same target is another streak.
      assert.equal(
        (await tell(second, { ...notice, kind: "paused_long" })).mail?.subject,
        "possekit: H has been paused for more than a day",
      );

      const mails = smtp.mails.length;
      const calls = hook.calls.length;
      second.recovered("h", "H");
      await second.idle();
      assert.equal(smtp.mails.length, mails + 1, "one recovery for both streaks");
      assert.deepEqual(read(smtp.mails.at(-1) as Mail), {
        subject: "possekit: H works again",
        text: `H works again: it took a post or passed a check. Waiting posts are sent by the next run.\n\nSyndication page: ${PAGE}`,
      });
      const body = JSON.parse(hook.calls.at(-1)?.body ?? "{}") as Body;
      assert.deepEqual(
        { ...body, at: "" },
        {
          event: "recovered",
          target: { uid: "h", name: "H" },
          subject: "H works again",
          text: `H works again: it took a post or passed a check. Waiting posts are sent by the next run.\n\nSyndication page: ${PAGE}`,
          at: "",
        },
      );
      assert.equal(hook.calls.length, calls + 1);
      // The first instance opened the streak too, but the other one already told its end.
      first.recovered("h", "H");
      await first.idle();
      // A target that never failed has nothing to recover from.
      first.recovered("never-failed", "N");
      second.recovered("never-failed", "N");
      await Promise.all([first.idle(), second.idle()]);
      assert.equal(smtp.mails.length, mails + 1);
      assert.equal(hook.calls.length, calls + 1);
      // Recovered, the next failure opens a new streak and is told again.
      assert.ok((await tell(first, notice)).mail);
      first.close();
      second.close();
    });

    it("each channel hears only the events switched on for it", async () => {
      const settings = both();
      const notifier = notifierWith({
        email: {
          ...(settings.email as NonNullable<NotificationSettings["email"]>),
          events: new Set(["recovered"]),
        },
        webhook: {
          ...(settings.webhook as NonNullable<NotificationSettings["webhook"]>),
          events: new Set(["refused"]),
        },
      });
      const told = await tell(notifier, { kind: "refused", targetUid: "i", targetName: "I", error: "401" });
      assert.equal(told.mail, undefined, "refused is not among the e-mail's events");
      assert.equal(told.body?.event, "refused");
      const mails = smtp.mails.length;
      const calls = hook.calls.length;
      notifier.recovered("i", "I");
      await notifier.idle();
      assert.equal(smtp.mails.length, mails + 1);
      assert.equal(read(smtp.mails.at(-1) as Mail).subject, "possekit: I works again");
      assert.equal(hook.calls.length, calls, "recovered is not among the webhook's events");
      // An account's notice is an "expiring" event: neither channel has it switched on.
      notifier.account({ targetUid: "i", targetName: "I", subject: "s", text: "t" });
      await notifier.idle();
      assert.equal(smtp.mails.length, mails + 1);
      assert.equal(hook.calls.length, calls);
      notifier.close();
    });

    it("an account's notice goes out as its flow wrote it, its link whole", async () => {
      const notifier = notifierWith(both());
      const text = `Reconnect before 1 December: https://example.org/syndicate/accounts?reconnect=${TOKEN}`;
      const from = Date.now();
      notifier.account({
        targetUid: "li-1",
        targetName: "LinkedIn",
        subject: "LinkedIn's access ends soon",
        text,
      });
      await notifier.idle();
      assert.deepEqual(read(smtp.mails.at(-1) as Mail), {
        subject: "possekit: LinkedIn's access ends soon",
        text,
      });
      const body = JSON.parse(hook.calls.at(-1)?.body ?? "{}") as Body;
      assert.ok(Date.parse(body.at) >= from - 1000);
      assert.deepEqual(
        { ...body, at: "" },
        {
          event: "expiring",
          target: { uid: "li-1", name: "LinkedIn" },
          subject: "LinkedIn's access ends soon",
          text,
          at: "",
        },
      );
      notifier.close();
    });

    it("with no channel on, a failure is not even counted: the channel switched on later hears of it", async () => {
      let current: NotificationSettings = {};
      const notifier = notifierWith(async () => current);
      const notice: FailureNotice = {
        kind: "retries_exhausted",
        targetUid: "j",
        targetName: "J",
        error: "422",
      };
      const told = await tell(notifier, notice);
      assert.deepEqual([told.mail, told.call], [undefined, undefined]);
      // Saved on the page: read again at the next delivery, no restart.
      current = { webhook: { url: hook.url, secret: SECRET, events: all() } };
      assert.equal((await tell(notifier, notice)).body?.subject, "J refused a post for good");
      // Another SMTP server saved later is the one the next mail goes to.
      const other = await startSmtp();
      try {
        current = { email: { ...(both().email as NonNullable<NotificationSettings["email"]>) } };
        assert.equal(
          (await tell(notifier, { ...notice, targetUid: "k", targetName: "K" })).mail?.subject,
          "possekit: K refused a post for good",
        );
        const email = current.email as NonNullable<NotificationSettings["email"]>;
        current = { email: { ...email, smtpUrl: `smtp://127.0.0.1:${other.port}` } };
        const mails = smtp.mails.length;
        notifier.failure({ ...notice, targetUid: "l", targetName: "L" });
        await notifier.idle();
        assert.equal(smtp.mails.length, mails);
        assert.deepEqual(
          other.mails.map((mail) => read(mail).subject),
          ["possekit: L refused a post for good"],
        );
      } finally {
        notifier.close();
        await other.close();
      }
    });

    it("a delivery refused is one warning without the secret, not retried; the streak still counts", async () => {
      const refusing = await startSmtp({
        refuse: (_address, _session, callback) =>
          callback(Object.assign(new Error("5.1.1 Mailbox unavailable"), { responseCode: 550 })),
      });
      const { logger, warnings } = recording();
      const secretHook = `${hook.url}/${TOKEN}`;
      const notifier = notifierWith(
        {
          email: {
            smtpUrl: `smtp://127.0.0.1:${refusing.port}`,
            from: "possekit@example.org",
            to: ["me@example.org"],
            events: all(),
          },
          webhook: { url: secretHook, secret: SECRET, events: all() },
        },
        { logger },
      );
      hook.answer.status = 500;
      try {
        const notice: FailureNotice = { kind: "refused", targetUid: "m", targetName: "M", error: "401" };
        await tell(notifier, notice);
        assert.deepEqual(warnings.map(({ message }) => message).sort(), [
          "A notification by e-mail could not be delivered",
          "A notification by webhook could not be delivered",
        ]);
        const byMail = warnings.find(({ message }) => message.includes("e-mail"));
        assert.match(String(byMail?.fields?.error), /550 5\.1\.1 Mailbox unavailable/);
        const byHook = warnings.find(({ message }) => message.includes("webhook"));
        assert.equal(
          byHook?.fields?.error,
          `${hook.url}/[hidden] answered 500 Internal Server Error`,
          "the webhook's secret path is not in the log",
        );
        const calls = hook.calls.length;
        await tell(notifier, notice);
        assert.equal(hook.calls.length, calls, "the same streak: not sent again");
        assert.equal(refusing.mails.length, 0);
        assert.equal(warnings.length, 2);
      } finally {
        hook.answer.status = 204;
        notifier.close();
        await refusing.close();
      }
    });

    it("a webhook that answers at length is still delivered", async () => {
      const { logger, warnings } = recording();
      const notifier = notifierWith(
        { webhook: { url: hook.url, secret: SECRET, events: all() } },
        { logger },
      );
      hook.answer.status = 200;
      hook.answer.body = "x".repeat(20 * 1024);
      try {
        const { body } = await tell(notifier, {
          kind: "refused",
          targetUid: "n",
          targetName: "N",
          error: "401",
        });
        assert.equal(body?.subject, "N refused the credentials");
        assert.deepEqual(warnings, []);
      } finally {
        hook.answer.status = 204;
        hook.answer.body = "";
      }
    });

    it("settings that cannot be read are one warning, never a throw into the run", async () => {
      const { logger, warnings } = recording();
      const thrown: unknown[] = [new Error("the secret box is gone"), "a bare string"];
      const notifier = notifierWith(
        async () => {
          throw thrown.shift();
        },
        { logger },
      );
      assert.doesNotThrow(() =>
        notifier.failure({ kind: "refused", targetUid: "o", targetName: "O", error: "401" }),
      );
      await notifier.idle();
      notifier.account({ targetUid: "o", targetName: "O", subject: "s", text: "t" });
      await notifier.idle();
      assert.deepEqual(warnings, [
        { message: "A notification could not be handled", fields: { error: "the secret box is gone" } },
        { message: "A notification could not be handled", fields: { error: "a bare string" } },
      ]);
    });
  });
}
