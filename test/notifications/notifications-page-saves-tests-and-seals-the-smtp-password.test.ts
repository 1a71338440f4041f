// Decision 0054: notifications set from the page. The owner saves e-mail settings naming a real
// SMTP server on 127.0.0.1 that wants a login (smtp-server), presses Send a test, the mail arrives
// and the page shows the server's own reply; the next real failure (a Mastodon sandbox that revokes
// the token) is mailed by the running server, with no restart. An SMTP URL that does not answer is
// refused in the reader's language, naming it, and nothing is saved; a webhook test to a local HTTP
// server reports its status; a POST without the session's CSRF token (or with a forged one, or with
// an access token) changes nothing; the SMTP password is never in the page or the log, and the row
// holds it sealed. Then on a server that sets e-mail in its environment and allows no private
// address: the channel shows as managed there, and a webhook on 127.0.0.1 is refused.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { EndpointSyndicate } from "../../src/plugin/endpoint-syndicate.ts";
import { startTarget, type Target } from "../endpoint/endpoint-server.ts";
import { engines, pgliteEngine } from "../helpers/databases.ts";
import { until } from "../helpers/eventually.ts";
import { createPostAt } from "../helpers/micropub-create.ts";
import { freePort, startTestServer, type TestServer } from "../helpers/server.ts";
import { type Mail, startSmtp, type TestSmtp, textOf } from "../helpers/smtp-server.ts";

const USER = "possekit-mailer";
const PASSWORD = `pw-${randomBytes(12).toString("hex")}`;
const HOOK_KEY = `hook-${randomBytes(16).toString("hex")}`;
const QUEUED = "2.0.0 Ok: queued as T3ST0001";
const TRIGGER_ONLY = { schedule: { enabled: false }, targets: { checkAtStart: false } };

interface Session {
  cookie: string;
  csrf: string;
}

function startHook(): Promise<{ server: Server; url: string; bodies: string[] }> {
  const bodies: string[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    request.on("end", () => {
      bodies.push(body);
      response.writeHead(202, "Accepted for the test").end();
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${port}/possekit-hook`, bodies });
    });
  });
}

function post(
  server: TestServer,
  session: Session | null,
  path: string,
  fields: Record<string, string | string[]>,
  headers: Record<string, string> = {},
): Promise<Response> {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields))
    for (const one of Array.isArray(value) ? value : [value]) body.append(name, one);
  return fetch(`${server.url}/syndicate/notifications${path}`, {
    method: "POST",
    headers: {
      accept: "text/html",
      "content-type": "application/x-www-form-urlencoded",
      ...(session ? { cookie: session.cookie } : {}),
      ...headers,
    },
    body,
    redirect: "manual",
  });
}

async function page(server: TestServer, session: Session, language = "en"): Promise<string> {
  const response = await fetch(`${server.url}/syndicate/notifications`, {
    headers: { cookie: session.cookie, accept: "text/html", "accept-language": language },
  });
  assert.equal(response.status, 200);
  return response.text();
}

/** The row as stored, read raw: what someone with the database file would see. */
async function rawRows(
  server: TestServer,
): Promise<{ channel: string; row: string; secret: string | null }[]> {
  const database = server.host.database;
  assert.ok(database);
  const { rows } = await database.query<{ channel: string; row: string; secret: string | null }>(
    "SELECT channel, row_to_json(c)::text AS row, secret FROM notification_channels c ORDER BY channel",
  );
  return rows;
}

for (const engine of engines) {
  describe(`the Notifications page (${engine.name})`, () => {
    let smtp: TestSmtp;
    let hook: Awaited<ReturnType<typeof startHook>>;
    let target: Target;
    let server: TestServer;
    let session: Session;
    const log: string[] = [];
    const smtpUrl = () => `smtp://${USER}@127.0.0.1:${smtp.port}`;

    before(async () => {
      smtp = await startSmtp({
        login: { user: USER, password: PASSWORD },
        reply: QUEUED,
        refuse(address, _session, callback) {
          if (address.address.startsWith("nobody@"))
            callback(
              Object.assign(new Error("5.1.1 <nobody@example.org>: no such user here"), {
                responseCode: 550,
              }),
            );
          else callback();
        },
      });
      hook = await startHook();
      target = await startTarget({ user: "alice" });
      server = await startTestServer({
        engine,
        config: { plugins: [], fetch: { allowPrivate: true } },
        // Trigger-only, as triggerOnly() makes a plug-in named in the config: the run this file
        // starts is the only one, never raced by the scheduler or a check at start.
        plugins: [target.syndicator(), new EndpointSyndicate(TRIGGER_ONLY, { env: {} })],
        log: (line) => log.push(line),
      });
      session = await server.signIn();
    });
    after(async () => {
      await server?.close();
      await target?.sandbox.close();
      await smtp?.close();
      await new Promise((resolve) => hook?.server.close(() => resolve(undefined)));
    });

    it("says notifications are off, and the Syndicate page has the tab", async () => {
      const html = await page(server, session);
      assert.match(html, /data-notifications="off"/);
      assert.match(html, /Notifications are off/);
      const syndicate = await fetch(`${server.url}/syndicate`, {
        headers: { cookie: session.cookie, accept: "text/html" },
      });
      assert.match(await syndicate.text(), /href="\/syndicate\/notifications"/);
    });

    it("refuses a POST without the session's CSRF token, with a forged one, and with an access token", async () => {
      const fields = { smtpUrl: smtpUrl(), smtpPassword: PASSWORD, to: "me@example.org", events: "refused" };
      assert.equal((await post(server, session, "/email", fields)).status, 403);
      assert.equal((await post(server, session, "/email", { ...fields, _csrf: "forged" })).status, 403);
      const token = await server.token("create update delete");
      const bearer = await post(server, null, "/email", fields, { authorization: `Bearer ${token}` });
      assert.equal(bearer.status, 403);
      assert.equal((await post(server, session, "/test", { channel: "email" })).status, 403);
      assert.deepEqual(await rawRows(server), [], "nothing saved");
      assert.equal(smtp.mails.length, 0, "nothing sent");
    });

    it("refuses an SMTP URL that does not answer, naming it in the reader's language, and saves nothing", async () => {
      const closed = await freePort();
      const answer = await post(
        server,
        session,
        "/email",
        {
          _csrf: session.csrf,
          smtpUrl: `smtp://${USER}:${PASSWORD}@127.0.0.1:${closed}`,
          to: "me@example.org",
          from: "possekit@example.org",
          events: ["refused", "recovered"],
        },
        { "accept-language": "de" },
      );
      assert.equal(answer.status, 400);
      const html = await answer.text();
      assert.match(html, /lang="de"/);
      assert.ok(
        html.includes(
          `Nichts wurde gespeichert: Der SMTP-Server smtp://${USER}@127.0.0.1:${closed} hat die Verbindung nicht angenommen`,
        ),
        html,
      );
      assert.match(html, /ECONNREFUSED/);
      assert.ok(!html.includes(PASSWORD), "the password typed into the URL is not shown again");
      assert.deepEqual(await rawRows(server), []);
    });

    it("refuses a wrong password with the server's own reply, and saves nothing", async () => {
      const answer = await post(server, session, "/email", {
        _csrf: session.csrf,
        smtpUrl: smtpUrl(),
        smtpPassword: "not-the-password",
        to: "me@example.org",
        from: "possekit@example.org",
        events: "refused",
      });
      assert.equal(answer.status, 400);
      const html = await answer.text();
      assert.match(html, /535 5\.7\.8 Authentication credentials invalid/);
      assert.deepEqual(await rawRows(server), []);
    });

    it("saves e-mail with the password sealed: never in the page, the row holds it sealed", async () => {
      const answer = await post(server, session, "/email", {
        _csrf: session.csrf,
        smtpUrl: smtpUrl(),
        smtpPassword: PASSWORD,
        to: "me@example.org, ops@example.org",
        from: "possekit@example.org",
        events: ["refused", "recovered"],
      });
      assert.equal(answer.status, 303, await answer.text());
      assert.equal(answer.headers.get("location"), "/syndicate/notifications#email");
      const html = await page(server, session);
      assert.doesNotMatch(html, /data-notifications="off"/);
      assert.match(html, /data-secret="saved"/);
      assert.ok(html.includes(`value="${smtpUrl()}"`), "the URL without its password");
      assert.ok(!html.includes(PASSWORD), "the password is never rendered back");
      assert.match(html, /id="email-event-refused" name="events" value="refused" checked/);
      assert.doesNotMatch(html, /id="email-event-paused_long" name="events" value="paused_long" checked/);

      const [row] = await rawRows(server);
      assert.ok(row);
      assert.equal(row.channel, "email");
      assert.ok(!row.row.includes(PASSWORD), "not in clear anywhere in the row");
      assert.match(row.secret ?? "", /^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]+$/);
      assert.equal(
        server.host.secretSealer?.open(row.secret ?? "", "notification-channel:email/secret"),
        PASSWORD,
      );
    });

    it("keeps the saved password when the form is saved again with the field empty", async () => {
      const answer = await post(server, session, "/email", {
        _csrf: session.csrf,
        smtpUrl: smtpUrl(),
        smtpPassword: "",
        to: "me@example.org, ops@example.org",
        from: "possekit@example.org",
        events: ["refused", "recovered"],
      });
      assert.equal(answer.status, 303, "the server took the kept password");
    });

    it("sends a test: the mail arrives, and the page shows the SMTP server's reply", async () => {
      const answer = await post(server, session, "/test", { _csrf: session.csrf, channel: "email" });
      assert.equal(answer.status, 303);
      const cookie = [session.cookie, ...answer.headers.getSetCookie().map((one) => one.split(";")[0])].join(
        "; ",
      );
      assert.equal(smtp.mails.length, 1);
      const mail = smtp.mails[0] as Mail;
      assert.deepEqual(mail.to, ["me@example.org", "ops@example.org"]);
      assert.match(textOf(mail), /Subject: possekit: a test notification/);
      const shown = await (
        await fetch(`${server.url}/syndicate/notifications`, { headers: { cookie, accept: "text/html" } })
      ).text();
      assert.ok(
        shown.includes(`The SMTP server answered: 250 ${QUEUED}`),
        "the reply code and text, as the server sent them",
      );
    });

    it("mails the next real failure at once: the saved settings need no restart", async () => {
      target.sandbox.setAccessToken("revoked-for-the-test");
      await createPostAt(server.url, await server.token("create update"), {
        content: "Sent while the token is revoked",
        targets: [target.uid],
      });
      const run = await fetch(`${server.url}/syndicate`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${await server.token("create update")}`,
          accept: "application/json",
        },
      });
      assert.ok(run.status < 300, `the run: ${run.status}`);
      await until("the refusal is mailed", () => smtp.mails.length >= 2);
      assert.match(textOf(smtp.mails[1] as Mail), /refused the credentials/);
    });

    it("tests a webhook on a local HTTP server and reports its status", async () => {
      const saved = await post(server, session, "/webhook", {
        _csrf: session.csrf,
        url: hook.url,
        secret: HOOK_KEY,
        events: ["retries_exhausted"],
      });
      assert.equal(saved.status, 303, await saved.text());
      const answer = await post(
        server,
        session,
        "/test",
        { _csrf: session.csrf, channel: "webhook" },
        {
          accept: "application/json",
        },
      );
      assert.equal(answer.status, 200);
      assert.deepEqual(await answer.json(), {
        channel: "webhook",
        ok: true,
        answer: "202 Accepted for the test",
      });
      assert.equal(hook.bodies.length, 1);
      assert.equal(JSON.parse(hook.bodies[0] ?? "{}").event, "test");
      const html = await page(server, session);
      assert.ok(!html.includes(HOOK_KEY), "the webhook's key is never rendered back");
      const rows = await rawRows(server);
      assert.ok(rows.every((row) => !row.row.includes(HOOK_KEY) && !row.row.includes(PASSWORD)));
    });

    it("reports the SMTP server's refusal of a test word for word", async () => {
      const saved = await post(server, session, "/email", {
        _csrf: session.csrf,
        smtpUrl: smtpUrl(),
        to: "nobody@example.org",
        from: "possekit@example.org",
        events: "refused",
      });
      assert.equal(saved.status, 303, "the server greets and takes the kept password");
      const before = smtp.mails.length;
      const answer = await post(
        server,
        session,
        "/test",
        { _csrf: session.csrf, channel: "email" },
        {
          accept: "application/json",
        },
      );
      assert.equal(answer.status, 502);
      const body = (await answer.json()) as { ok: boolean; answer: string };
      assert.equal(body.ok, false);
      assert.match(body.answer, /^550 5\.1\.1 <nobody@example\.org>: no such user here$/);
      assert.equal(smtp.mails.length, before, "nothing arrived");
    });

    it("turns e-mail off: the page says so, and nothing more is mailed", async () => {
      const off = await post(server, session, "/email/off", { _csrf: session.csrf });
      assert.equal(off.status, 303);
      const html = await page(server, session);
      assert.match(html, /No e-mail is sent|no e-mail is sent/);
      assert.deepEqual(
        (await rawRows(server)).map((row) => row.channel),
        ["webhook"],
      );
    });

    it("never wrote the SMTP password or the webhook's key to the log", () => {
      assert.ok(log.length > 0, "the log was read");
      for (const line of log) {
        assert.ok(!line.includes(PASSWORD), line);
        assert.ok(!line.includes(HOOK_KEY), line);
      }
    });
  });
}

describe("the Notifications page beside the environment, with private addresses refused", () => {
  let server: TestServer;
  let session: Session;
  let hook: Awaited<ReturnType<typeof startHook>>;
  const envPassword = `env-${randomBytes(8).toString("hex")}`;

  before(async () => {
    hook = await startHook();
    server = await startTestServer({
      engine: pgliteEngine,
      config: { plugins: [] },
      plugins: [
        new EndpointSyndicate(TRIGGER_ONLY, {
          env: {
            NOTIFY_SMTP_URL: `smtp://env-user:${envPassword}@mail.example.org:587`,
            NOTIFY_EMAIL_TO: "env@example.org",
            NOTIFY_EMAIL_FROM: "possekit@example.org",
          },
        }),
      ],
    });
    session = await server.signIn();
  });
  after(async () => {
    await server?.close();
    await new Promise((resolve) => hook?.server.close(() => resolve(undefined)));
  });

  it("shows e-mail as managed by the environment, without its password, and refuses to change it", async () => {
    const html = await page(server, session);
    assert.doesNotMatch(html, /data-notifications="off"/);
    assert.match(html, /Set by environment variables \(NOTIFY_SMTP_URL/);
    assert.ok(html.includes("smtp://env-user@mail.example.org:587"));
    assert.ok(!html.includes(envPassword));
    assert.doesNotMatch(html, /id="email-form"/);
    const answer = await post(server, session, "/email", {
      _csrf: session.csrf,
      smtpUrl: "smtp://127.0.0.1:1",
      to: "me@example.org",
      events: "refused",
    });
    assert.equal(answer.status, 400);
    assert.match(
      await answer.text(),
      /E-mail is set by environment variables \(NOTIFY_SMTP_URL\): change it there/,
    );
    assert.deepEqual(await rawRows(server), []);
  });

  it("refuses a webhook on a private address, naming it, and saves nothing", async () => {
    const answer = await post(server, session, "/webhook", {
      _csrf: session.csrf,
      url: hook.url,
      secret: HOOK_KEY,
      events: "refused",
    });
    assert.equal(answer.status, 400);
    const html = await answer.text();
    assert.ok(html.includes(`Nothing was saved: ${hook.url} is on a private address (127.0.0.1)`), html);
    assert.match(html, /fetch\.allowPrivate/);
    assert.deepEqual(await rawRows(server), []);
    assert.equal(hook.bodies.length, 0);
  });
});
