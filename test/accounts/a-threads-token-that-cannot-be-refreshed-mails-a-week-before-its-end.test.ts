// A Threads token is kept alive with nobody watching: the scheduler refreshes it once it is a day
// old (maintainCredentials), and when Threads refuses every refresh the owner is told by e-mail (a
// real SMTP server on 127.0.0.1) a week before the token's 60 days end, once, never with the token.
// The core, its scheduler, the syndicator and the Threads stand-in all run on the test's clock.
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { SMTPServer } from "smtp-server";
import { startThreadsSandbox, type ThreadsSandbox } from "../../dev/sandbox/threads-server.ts";
import { ThreadsSyndicator } from "../../src/syndicators/threads/index.ts";
import { type EndpointServer, startEndpointServer, until } from "../endpoint/endpoint-server.ts";
import { pgliteEngine } from "../helpers/databases.ts";
import { looks, ServerClock, schedulerOf } from "../schedule/scheduled-server.ts";

const DAY = 86_400_000;

describe("a Threads token that cannot be refreshed", () => {
  const mails: string[] = [];
  let smtp: SMTPServer;
  let sandbox: ThreadsSandbox;
  let app: EndpointServer;
  let token = "";
  const clock = new ServerClock();

  before(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onData(stream, _session, callback) {
        let raw = "";
        stream.setEncoding("utf8");
        stream.on("data", (chunk: string) => {
          raw += chunk;
        });
        stream.on("end", () => {
          // Soft line breaks and folded headers undone.
          mails.push(raw.replace(/=\r?\n/g, "").replace(/\r?\n[ \t]+/g, " "));
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", () => resolve()));
    // The notifier reads the process's environment (docs/notifications.md); this file runs alone.
    process.env.NOTIFY_SMTP_URL = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
    process.env.NOTIFY_EMAIL_TO = "owner@example.org";
    process.env.NOTIFY_EMAIL_FROM = "possekit@example.org";
    sandbox = await startThreadsSandbox({
      appId: "1234567890",
      appSecret: "app-secret-value",
      now: clock.now,
    });
    token = sandbox.issueLongLivedToken();
    const threads = new ThreadsSyndicator(
      {
        userId: "17841400000000001",
        username: "alice",
        accessToken: token,
        apiUrl: sandbox.apiUrl,
        tokenIssuedAt: new Date(clock.now()).toISOString(),
      },
      {},
      { now: clock.now },
    );
    app = await startEndpointServer({
      engine: pgliteEngine,
      targets: [],
      syndicators: [threads],
      pluginOptions: { schedule: { enabled: true, whenLive: false } },
      clock,
    });
  });
  after(async () => {
    await app?.close();
    await sandbox?.close();
    await new Promise((resolve) => smtp?.close(() => resolve(undefined)));
  });

  const refreshes = () =>
    sandbox.requests.filter((request) => request.path === "/refresh_access_token").length;

  it("is refreshed by the scheduler after a day, and mails once a week before its end", async () => {
    await clock.advance(DAY + 60_000);
    await looks(schedulerOf(app));
    assert.equal(refreshes(), 1, "refreshed by the scheduler once a day old");
    const refreshed = sandbox.tokens.at(-1);
    assert.ok(refreshed && refreshed.token !== token);

    sandbox.refuseRefresh = true;
    await clock.advance(45 * DAY);
    await looks(schedulerOf(app));
    assert.ok(refreshes() >= 2, "tried again");
    assert.equal(mails.length, 0, "14 days left: nobody is told yet");

    await clock.advance(8 * DAY);
    await looks(schedulerOf(app));
    await until("the owner got a mail", () => mails.length >= 1);
    await looks(schedulerOf(app));
    assert.equal(mails.length, 1, "one mail");
    const [mail = ""] = mails;
    assert.match(
      mail,
      /Subject: possekit: @alice \(Threads\)'s access ends on \d{4}-\d{2}-\d{2} and could not/,
    );
    assert.match(mail, /not authorized application/);
    assert.match(mail, /Reconnect/);
    assert.ok(!mail.includes(token) && !mail.includes(refreshed.token), "never a token");
  });
});
