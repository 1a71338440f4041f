// Decision 0054, below the page: the channels saved from the Notifications page keep their one
// secret each sealed (bound to its channel), what the page shows never holds it, a save keeps,
// forgets or replaces it as asked, `possekit rekey` seals it again under the new key; and "Send a
// test" reports what a real SMTP server on 127.0.0.1 or a local webhook answered, word for word,
// with anything that looks like a credential cut out.
import assert from "node:assert/strict";
import { createHmac, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { type AddressInfo, createServer as createTcpServer } from "node:net";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import { notificationMigrations } from "../../src/notifications/migrations.ts";
import { SIGNATURE_HEADER } from "../../src/notifications/notifier.ts";
import {
  channelSecretData,
  NotificationSettingsStore,
  withoutPassword,
  withPassword,
} from "../../src/notifications/settings-store.ts";
import {
  checkSmtpServer,
  sendTestEmail,
  sendTestWebhook,
  testMessage,
} from "../../src/notifications/test-message.ts";
import { SecretBox } from "../../src/server/accounts/secret-box.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { engines } from "../helpers/databases.ts";
import { type Mail, startSmtp, type TestSmtp, textOf } from "../helpers/smtp-server.ts";

const USER = "possekit-mailer";
// Characters a URL must escape, so that the password is only right when encoded and decoded.
const PASSWORD = "p@ss:w/rd%20 ok";
const TOKEN = "Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG8";
const HOOK_KEY = "a-webhook-secret-of-32-characters!";
const PAGE = "https://example.org/syndicate";

function startHook(
  status: number,
  reason: string,
): Promise<{ server: Server; url: string; calls: { body: string; signature: string }[] }> {
  const calls: { body: string; signature: string }[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    request.on("end", () => {
      calls.push({ body, signature: String(request.headers[SIGNATURE_HEADER] ?? "") });
      response.writeHead(status, reason).end();
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${port}/hook`, calls });
    });
  });
}

describe("an SMTP URL's password, kept apart", () => {
  it("is taken out for the page and put back, escaped, for nodemailer", () => {
    assert.deepEqual(withoutPassword("smtp://me:p%40ss%3A@mail.example.org:587"), {
      url: "smtp://me@mail.example.org:587",
      password: "p@ss:",
    });
    assert.deepEqual(withoutPassword("smtp://me@mail.example.org:587"), {
      url: "smtp://me@mail.example.org:587",
      password: null,
    });
    assert.equal(
      withPassword("smtp://me@mail.example.org:587", "p@ss:"),
      "smtp://me:p%40ss%3A@mail.example.org:587",
    );
    assert.equal(withPassword("smtp://me@mail.example.org:587", null), "smtp://me@mail.example.org:587");
    assert.equal(withPassword("smtp://me@mail.example.org:587", ""), "smtp://me@mail.example.org:587");
  });
});

for (const engine of engines) {
  describe(`notification channels saved from the page (${engine.name})`, () => {
    let database: Database;
    let smtp: TestSmtp;
    let now = Date.parse("2026-11-28T10:00:00Z");
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    let box: SecretBox | null = new SecretBox(oldKey);
    let store: NotificationSettingsStore;
    before(async () => {
      database = await engine.open();
      // The channels' table is the plug-in's own: not in the tests' snapshot, applied here.
      assert.deepEqual(await migrate(database, notificationMigrations), [
        "endpoint-syndicate/notifications-001-channels",
      ]);
      smtp = await startSmtp({
        login: { user: USER, password: PASSWORD },
        reply: "2.0.0 Ok: queued as T3ST0001",
      });
      store = new NotificationSettingsStore(
        database,
        () => box,
        () => now,
      );
    });
    after(async () => {
      await database.close();
      await smtp.close();
    });

    const sealedSecrets = async () =>
      (
        await database.query<{ channel: string; secret: string | null }>(
          "SELECT channel, secret FROM notification_channels ORDER BY channel",
        )
      ).rows;

    it("nothing saved is nothing shown and no channel", async () => {
      assert.equal(store.available, true);
      assert.deepEqual(await store.saved(), { email: null, webhook: null });
      assert.deepEqual(await store.settings(), {});
      assert.equal(await store.remove("email"), false);
    });

    it("saves the e-mail channel with its password sealed; the page sees when, never what", async () => {
      const { url, password } = withoutPassword(
        `smtp://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${smtp.port}`,
      );
      const email = {
        smtpUrl: url,
        from: "possekit@example.org",
        to: ["me@example.org"],
        events: ["refused" as const],
      };
      await store.save("email", email, { replace: password ?? "" });
      const [row] = await sealedSecrets();
      assert.ok(row?.secret && box?.isSealed(row.secret) && !row.secret.includes(PASSWORD));
      assert.deepEqual(await store.saved(), {
        email: { settings: email, secretSetAt: new Date(now), updatedAt: new Date(now) },
        webhook: null,
      });
      const settings = await store.settings();
      assert.deepEqual([...(settings.email?.events ?? [])], ["refused"]);
      assert.deepEqual(settings.email?.to, ["me@example.org"]);
      assert.equal(settings.email?.from, "possekit@example.org");
      assert.equal(settings.webhook, undefined);
      // The password put back is the one the SMTP server takes.
      assert.deepEqual(await checkSmtpServer(settings.email?.smtpUrl ?? ""), { ok: true, answer: "" });
    });

    it("a save that keeps the secret changes the rest only; forgetting it sends without a login", async () => {
      now += 60_000;
      const [before] = await sealedSecrets();
      const email = {
        smtpUrl: `smtp://${USER}@127.0.0.1:${smtp.port}`,
        from: "possekit@example.org",
        to: ["other@example.org"],
        events: ["refused" as const, "recovered" as const],
      };
      await store.save("email", email, { keep: true });
      const [kept] = await sealedSecrets();
      assert.equal(kept?.secret, before?.secret);
      const saved = await store.saved();
      assert.deepEqual(saved.email, {
        settings: email,
        secretSetAt: new Date(now - 60_000),
        updatedAt: new Date(now),
      });
      assert.deepEqual((await store.settings()).email?.to, ["other@example.org"]);

      await store.save("email", email, { forget: true });
      assert.deepEqual(await sealedSecrets(), [{ channel: "email", secret: null }]);
      assert.equal((await store.saved()).email?.secretSetAt, null);
      assert.equal((await store.settings()).email?.smtpUrl, email.smtpUrl);
    });

    it("a webhook saved without a secret yet is shown so, and sends with none", async () => {
      await store.save(
        "webhook",
        { url: "https://hooks.example.org/p", events: ["expiring"] },
        { keep: true },
      );
      assert.deepEqual((await store.saved()).webhook, {
        settings: { url: "https://hooks.example.org/p", events: ["expiring"] },
        secretSetAt: null,
        updatedAt: new Date(now),
      });
      assert.equal((await store.settings()).webhook?.secret, "");
      await store.save(
        "webhook",
        { url: "https://hooks.example.org/p", events: ["expiring"] },
        { replace: HOOK_KEY },
      );
      const webhook = (await store.settings()).webhook;
      assert.deepEqual(
        { ...webhook, events: [...(webhook?.events ?? [])] },
        {
          url: "https://hooks.example.org/p",
          secret: HOOK_KEY,
          events: ["expiring"],
        },
      );
    });

    it("a sealed secret opens for its own channel only", async () => {
      assert.notEqual(channelSecretData("email"), channelSecretData("webhook"));
      await store.save("email", (await store.saved()).email?.settings as never, {
        replace: "email-password",
      });
      const [email] = await sealedSecrets();
      await database.query("UPDATE notification_channels SET secret = $1 WHERE channel = 'webhook'", [
        email?.secret,
      ]);
      await assert.rejects(store.settings());
      await store.save(
        "webhook",
        { url: "https://hooks.example.org/p", events: ["expiring"] },
        { replace: HOOK_KEY },
      );
    });

    it("rekey seals each secret again under the new key, once; the old key is then not needed", async () => {
      box = new SecretBox(newKey, [oldKey]);
      assert.equal(await store.rekey(), 2);
      assert.equal(await store.rekey(), 0);
      box = new SecretBox(newKey);
      const settings = await store.settings();
      assert.equal(settings.webhook?.secret, HOOK_KEY);
      assert.match(settings.email?.smtpUrl ?? "", /:email-password@/);
    });

    it("removes a channel with its secret", async () => {
      assert.equal(await store.remove("webhook"), true);
      assert.deepEqual(
        (await sealedSecrets()).map(({ channel }) => channel),
        ["email"],
      );
      assert.equal((await store.saved()).webhook, null);
    });

    it("without a secret box nothing can be saved or opened, and there is nothing to rekey", async () => {
      box = null;
      assert.equal(store.available, false);
      assert.equal(await store.rekey(), 0);
      await assert.rejects(
        store.settings(),
        /^Error: Notification channels need the host's secret box, and there is none$/,
      );
      await assert.rejects(
        store.save("webhook", { url: "https://hooks.example.org/p", events: [] }, { replace: HOOK_KEY }),
        /need the host's secret box/,
      );
      box = new SecretBox(newKey);
    });

    it("Send a test by e-mail: the mail arrives and the page shows the server's reply", async () => {
      const message = testMessage(PAGE, new Date("2026-11-28T10:00:00Z"));
      assert.deepEqual(message, {
        event: "test",
        target: { uid: PAGE, name: "possekit" },
        subject: "a test notification",
        text: `This is a test, sent from the Notifications page. Notifications reach you here.\n\nSyndication page: ${PAGE}`,
        at: "2026-11-28T10:00:00.000Z",
      });
      const answer = await sendTestEmail(
        {
          smtpUrl: `smtp://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${smtp.port}`,
          from: "possekit@example.org",
          to: ["me@example.org"],
          events: new Set(),
        },
        message,
      );
      assert.deepEqual(answer, { ok: true, answer: "250 2.0.0 Ok: queued as T3ST0001" });
      const mail = textOf(smtp.mails.at(-1) as Mail);
      assert.deepEqual(smtp.mails.at(-1)?.to, ["me@example.org"]);
      assert.match(mail, /^Subject: possekit: a test notification$/m);
      assert.match(mail, /^From: possekit@example\.org$/m);
      assert.match(
        mail,
        /This is a test, sent from the Notifications page\. Notifications reach you here\.\r\n\r\nSyndication page: https:\/\/example\.org\/syndicate/,
      );
    });

    it("a wrong password is the server's own refusal, without the password", async () => {
      const wrong = `smtp://${USER}:${TOKEN}@127.0.0.1:${smtp.port}`;
      const message = testMessage(PAGE, new Date());
      const email = {
        smtpUrl: wrong,
        from: "possekit@example.org",
        to: ["me@example.org"],
        events: new Set<never>(),
      };
      for (const answer of [await checkSmtpServer(wrong), await sendTestEmail(email, message)]) {
        assert.equal(answer.ok, false);
        assert.match(answer.answer, /^535 5\.7\.8 Authentication credentials invalid$/);
      }
    });

    it("a refused recipient's reply is shown, a token it echoes cut out", async () => {
      const refusing = await startSmtp({
        refuse: (address, _session, callback) =>
          callback(
            Object.assign(new Error(`5.1.1 <${address.address}> ${TOKEN} unknown`), { responseCode: 550 }),
          ),
      });
      try {
        const answer = await sendTestEmail(
          {
            smtpUrl: `smtp://127.0.0.1:${refusing.port}`,
            from: "possekit@example.org",
            to: ["no@example.org"],
            events: new Set(),
          },
          testMessage(PAGE, new Date()),
        );
        assert.deepEqual(answer, { ok: false, answer: "550 5.1.1 <no@example.org> [hidden] unknown" });
      } finally {
        await refusing.close();
      }
    });

    it("an SMTP server that does not answer is said so", async () => {
      const closed = await startSmtp();
      await closed.close();
      const answer = await checkSmtpServer(`smtp://127.0.0.1:${closed.port}`);
      assert.deepEqual(answer, { ok: false, answer: `connect ECONNREFUSED 127.0.0.1:${closed.port}` });
    });

    it("Send a test by webhook: its status and reason, whatever they are; signed; never to a private address unless allowed", async () => {
      const accepting = await startHook(202, "Accepted for the test");
      const failing = await startHook(500, "Broken");
      try {
        const message = testMessage(PAGE, new Date("2026-11-28T10:00:00Z"));
        const webhook = (url: string) => ({ url, secret: HOOK_KEY, events: new Set<never>() });
        assert.deepEqual(await sendTestWebhook(webhook(accepting.url), message, { allowPrivate: true }), {
          ok: true,
          answer: "202 Accepted for the test",
        });
        const [call] = accepting.calls;
        assert.deepEqual(JSON.parse(call?.body ?? ""), message);
        assert.equal(
          call?.signature,
          `sha256=${createHmac("sha256", HOOK_KEY)
            .update(call?.body ?? "")
            .digest("hex")}`,
        );
        assert.deepEqual(await sendTestWebhook(webhook(failing.url), message, { allowPrivate: true }), {
          ok: false,
          answer: "500 Broken",
        });
        // A status line without a reason phrase (HTTP/1.1 allows it): the status alone, no trailing space.
        const bare = createTcpServer((socket) => {
          socket.once("data", () =>
            socket.end("HTTP/1.1 299 \r\ncontent-length: 0\r\nconnection: close\r\n\r\n"),
          );
        });
        await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
        try {
          const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
          assert.deepEqual(await sendTestWebhook(webhook(bareUrl), message, { allowPrivate: true }), {
            ok: true,
            answer: "299",
          });
        } finally {
          await new Promise((resolve) => bare.close(() => resolve(undefined)));
        }
        const refused = await sendTestWebhook(webhook(`${accepting.url}/${TOKEN}`), message, {});
        assert.equal(refused.ok, false);
        assert.match(refused.answer, /private/i);
        assert.ok(!refused.answer.includes(TOKEN), refused.answer);
        assert.equal(accepting.calls.length, 1);
      } finally {
        await new Promise((resolve) => accepting.server.close(() => resolve(undefined)));
        await new Promise((resolve) => failing.server.close(() => resolve(undefined)));
      }
    });
  });
}
