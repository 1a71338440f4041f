// Decision 0050: a failure that needs the user reaches them without opening the page: by e-mail
// over SMTP (a real SMTP server on 127.0.0.1, smtp-server, the nodemailer project's own) and by a
// JSON webhook signed with HMAC-SHA256. One message per failing streak, one "recovered" message,
// never a token in the text, each channel switchable per event, settings that say what to write.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import {
  NotificationSettingsError,
  notificationSettings,
} from "../../src/notifications/notification-settings.ts";
import { Notifier, SIGNATURE_HEADER, withoutSecrets } from "../../src/notifications/notifier.ts";
import { Syndication } from "../../src/syndication/syndication.ts";
import { engines } from "../helpers/databases.ts";
import { type Mail, startSmtp, textOf } from "../helpers/smtp-server.ts";
import {
  copyUrl,
  openSyndication,
  publication,
  type SyndicationFixture,
  silent,
  TestTarget,
} from "./syndication-fixture.ts";

const SECRET = "a-webhook-secret-of-32-characters!";
const TOKEN = "Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG8";

function startHook(): Promise<{ server: Server; url: string; calls: { body: string; signature: string }[] }> {
  const calls: { body: string; signature: string }[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    request.on("end", () => {
      calls.push({ body, signature: String(request.headers[SIGNATURE_HEADER] ?? "") });
      response.writeHead(204).end();
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${port}/hook`, calls });
    });
  });
}

for (const engine of engines) {
  describe(`notifications: one message per failing streak, one when recovered (${engine.name})`, () => {
    let smtp: Awaited<ReturnType<typeof startSmtp>>;
    let hook: Awaited<ReturnType<typeof startHook>>;
    let fixture: SyndicationFixture;
    let target: TestTarget;
    let notifier: Notifier;
    let syndication: Syndication;
    before(async () => {
      smtp = await startSmtp();
      hook = await startHook();
      target = new TestTarget("https://social.example/@me", { name: "Social" });
      fixture = await openSyndication(engine, [target]);
      const settings = notificationSettings(
        {
          NOTIFY_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
          NOTIFY_EMAIL_TO: "me@example.org",
          NOTIFY_WEBHOOK_URL: hook.url,
          NOTIFY_WEBHOOK_SECRET: SECRET,
          NOTIFY_WEBHOOK_EVENTS: "retries_exhausted,recovered",
        },
        publication.me,
      );
      notifier = new Notifier({
        database: fixture.database,
        settings,
        logger: silent,
        fetchPolicy: { allowPrivate: true },
        pageUrl: "https://example.org/syndicate",
      });
      syndication = new Syndication({
        database: fixture.database,
        posts: fixture.posts,
        syndicators: () => [target],
        publication,
        logger: silent,
        notices: notifier,
      });
    });
    after(async () => {
      await syndication.runs.shutdown();
      await notifier.idle();
      notifier.close();
      await fixture.close();
      await new Promise((resolve) => smtp.server.close(() => resolve(undefined)));
      await new Promise((resolve) => hook.server.close(() => resolve(undefined)));
    });

    const failPosts = async (count: number, from: number) => {
      for (let n = from; n < from + count; n += 1) {
        const post = await fixture.createPost(`2024-06-${String(n).padStart(2, "0")}T00:00:00Z`, [
          target.info.uid,
        ]);
        await syndication.runs.syndicatePost(post.url, "manual");
      }
      await notifier.idle();
    };

    it("3 posts refused for good send 1 mail and 1 webhook, without the token the error echoed", async () => {
      target.behaviour = () => {
        throw new SyndicationError(`Social: 422 Validation failed (access_token=${TOKEN})`, {
          status: 422,
          permanent: true,
        });
      };
      await failPosts(3, 1);
      assert.equal(smtp.mails.length, 1);
      const text = textOf(smtp.mails[0] as Mail);
      assert.deepEqual(smtp.mails[0]?.to, ["me@example.org"]);
      assert.match(text, /Subject: possekit: Social refused a post for good/);
      assert.match(text, /https:\/\/example\.org\/syndicate/);
      assert.ok(!text.includes(TOKEN), "the token is not in the mail");
      assert.equal(hook.calls.length, 1);
      assert.ok(!hook.calls[0]?.body.includes(TOKEN), "nor in the webhook");
    });

    it("10 more failures of the same streak send nothing", async () => {
      await failPosts(10, 4);
      assert.equal(smtp.mails.length, 1);
      assert.equal(hook.calls.length, 1);
    });

    it("a success sends 1 'recovered' mail and webhook; the webhook's signature verifies", async () => {
      target.behaviour = (call, count) => copyUrl(target.info.uid, call.postUrl, count);
      await failPosts(2, 20);
      assert.equal(smtp.mails.length, 2);
      assert.match(textOf(smtp.mails[1] as Mail), /Subject: possekit: Social works again/);
      assert.equal(hook.calls.length, 2);
      for (const call of hook.calls) {
        const expected = `sha256=${createHmac("sha256", SECRET).update(call.body).digest("hex")}`;
        assert.equal(call.signature, expected);
      }
      assert.deepEqual(
        hook.calls.map((call) => (JSON.parse(call.body) as { event: string }).event),
        ["retries_exhausted", "recovered"],
      );
    });

    it("a target paused for more than a day is mailed once, found by the scheduler's check", async () => {
      let now = Date.now();
      const checked = new TestTarget("https://checked.example/@me", { name: "Checked" });
      Object.assign(checked, {
        verify: async () => {
          throw new SyndicationError("Checked: 401 The access token is invalid", {
            status: 401,
            permanent: true,
          });
        },
      });
      const clocked = new Syndication({
        database: fixture.database,
        posts: fixture.posts,
        syndicators: () => [checked],
        publication,
        logger: silent,
        notices: notifier,
        options: { clock: () => now },
      });
      await clocked.runs.checkTargets();
      await notifier.idle();
      const before = smtp.mails.length;
      assert.match(textOf(smtp.mails.at(-1) as Mail), /Subject: possekit: Checked refused the credentials/);
      now += 25 * 3_600_000;
      await clocked.due.checkPausedTargets();
      await clocked.due.checkPausedTargets();
      await notifier.idle();
      assert.equal(smtp.mails.length, before + 1, "one mail, however often the scheduler looks");
      assert.match(
        textOf(smtp.mails.at(-1) as Mail),
        /Subject: possekit: Checked has been paused for more than a day/,
      );
      await clocked.runs.shutdown();
    });

    it("a refusal is switched off for the webhook but mailed; a new streak mails again", async () => {
      target.behaviour = () => {
        throw new SyndicationError("Social: 401 The access token is invalid", {
          status: 401,
          permanent: true,
        });
      };
      const mails = smtp.mails.length;
      await failPosts(1, 25);
      assert.equal(smtp.mails.length, mails + 1);
      assert.match(textOf(smtp.mails.at(-1) as Mail), /Subject: possekit: Social refused the credentials/);
      assert.equal(hook.calls.length, 2, "refused is not among NOTIFY_WEBHOOK_EVENTS");
    });

    it("a streak open at a restart is not mailed again, and its recovery is mailed by the new process", async () => {
      const other = new TestTarget("https://other.example/@me", { name: "Other" });
      other.behaviour = () => {
        throw new SyndicationError("Other: 422 Validation failed", { status: 422, permanent: true });
      };
      const core = (notices: Notifier) =>
        new Syndication({
          database: fixture.database,
          posts: fixture.posts,
          syndicators: () => [other],
          publication,
          logger: silent,
          notices,
        });
      const send = async (through: Syndication, notices: Notifier, day: number) => {
        const post = await fixture.createPost(`2024-07-${String(day).padStart(2, "0")}T00:00:00Z`, [
          other.info.uid,
        ]);
        await through.runs.syndicatePost(post.url, "manual");
        await notices.idle();
      };
      const mails = smtp.mails.length;
      const before = core(notifier);
      await send(before, notifier, 1);
      await before.runs.shutdown();
      assert.equal(smtp.mails.length, mails + 1, "the streak's first failure is mailed");
      // A restart: a new notifier and core over the same database, nothing carried over in memory.
      const restart = () =>
        new Notifier({
          database: fixture.database,
          settings: notificationSettings(
            { NOTIFY_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, NOTIFY_EMAIL_TO: "me@example.org" },
            publication.me,
          ),
          logger: silent,
          fetchPolicy: { allowPrivate: true },
          pageUrl: "https://example.org/syndicate",
        });
      const life = async (work: (through: Syndication, notices: Notifier) => Promise<void>) => {
        const notices = restart();
        const through = core(notices);
        try {
          await work(through, notices);
        } finally {
          await through.runs.shutdown();
          await notices.idle();
          notices.close();
        }
      };
      await life(async (through, notices) => {
        await send(through, notices, 2);
        assert.equal(smtp.mails.length, mails + 1, "the same streak: nothing new after the restart");
      });
      // Another restart, and the first thing the target does is take a post.
      other.behaviour = (call, count) => copyUrl(other.info.uid, call.postUrl, count);
      await life(async (through, notices) => {
        await send(through, notices, 3);
        assert.equal(smtp.mails.length, mails + 2);
        assert.match(textOf(smtp.mails.at(-1) as Mail), /Subject: possekit: Other works again/);
      });
    });
  });
}

describe("the outgoing webhook follows the outgoing-fetch rules", () => {
  it("is never sent to a private address unless fetch.allowPrivate says so", async () => {
    const hook = await startHook();
    const database = await engines[0]?.open();
    assert.ok(database);
    const { migrate } = await import("../../src/server/database/migrate.ts");
    const { postMigrations } = await import("../../src/server/posts/migrations.ts");
    const { syndicationMigrations } = await import("../../src/syndication/migrations.ts");
    await migrate(database, [...postMigrations, ...syndicationMigrations]);
    const warnings: string[] = [];
    const notifier = new Notifier({
      database,
      settings: notificationSettings(
        { NOTIFY_WEBHOOK_URL: hook.url, NOTIFY_WEBHOOK_SECRET: SECRET },
        publication.me,
      ),
      logger: {
        ...silent,
        warn: (message: string, fields?: Record<string, unknown>) =>
          warnings.push(`${message} ${JSON.stringify(fields)}`),
      },
      fetchPolicy: {},
      pageUrl: "https://example.org/syndicate",
    });
    notifier.failure({ kind: "refused", targetUid: "t", targetName: "T", error: "401" });
    await notifier.idle();
    assert.equal(hook.calls.length, 0, "no request reached 127.0.0.1");
    assert.match(warnings.join("\n"), /A notification by webhook could not be delivered.*private/i);
    await database.close();
    await new Promise((resolve) => hook.server.close(() => resolve(undefined)));
  });
});

describe("notification settings", () => {
  const site = "https://example.org/";
  const mistakes: [Record<string, string>, RegExp][] = [
    [{ NOTIFY_SMTP_URL: "mail.example.org" }, /^NOTIFY_SMTP_URL must be an smtp:\/\/ or smtps:\/\/ URL/],
    [{ NOTIFY_SMTP_URL: "smtp://mail.example.org" }, /^NOTIFY_SMTP_URL is set but NOTIFY_EMAIL_TO is not/],
    [
      { NOTIFY_SMTP_URL: "smtp://m.example", NOTIFY_EMAIL_TO: "me" },
      /^NOTIFY_EMAIL_TO has "me", which is not/,
    ],
    [
      { NOTIFY_WEBHOOK_URL: "https://h.example/" },
      /^NOTIFY_WEBHOOK_SECRET must be set, 16 characters or more/,
    ],
    [
      {
        NOTIFY_WEBHOOK_URL: "https://h.example/",
        NOTIFY_WEBHOOK_SECRET: SECRET,
        NOTIFY_WEBHOOK_EVENTS: "all",
      },
      /^NOTIFY_WEBHOOK_EVENTS names "all", which is no event: write some of refused,/,
    ],
  ];
  for (const [env, message] of mistakes) {
    it(`refuses ${JSON.stringify(env)} in one line`, () => {
      assert.throws(
        () => notificationSettings(env, site),
        (error: unknown) =>
          error instanceof NotificationSettingsError &&
          message.test(error.message) &&
          !error.message.includes("\n"),
      );
    });
  }

  it("needs nothing when nothing is asked for, and hides credentials in any text", () => {
    assert.deepEqual(notificationSettings({}, site), {});
    assert.equal(withoutSecrets("Authorization: Bearer abc.def"), "Authorization: Bearer [hidden]");
    assert.equal(withoutSecrets(`failed ${TOKEN} here`), "failed [hidden] here");
    assert.equal(withoutSecrets("password=hunter2&x=1"), "password=[hidden]&x=1");
  });
});
