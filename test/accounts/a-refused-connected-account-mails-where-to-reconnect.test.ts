// A connected account whose token the instance revoked: the owner is told by e-mail (a real SMTP
// server on 127.0.0.1, smtp-server, the nodemailer project's own) without opening any page. The
// mail names the account, says that its posts wait and go out by themselves once it is reconnected,
// and gives the Accounts page's address, where its Reconnect button is; it never holds the token.
// One mail for the streak however often the scheduler looks. The core and scheduler run on the
// test's clock; Mastodon is the sandbox (dev/sandbox/mastodon-server.ts).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { closeAll, type EndpointServer, startEndpointServer, until } from "../endpoint/endpoint-server.ts";
import { pgliteEngine } from "../helpers/databases.ts";
import { startSmtp, textOf } from "../helpers/smtp-server.ts";
import { looks, ServerClock, schedulerOf } from "../schedule/scheduled-server.ts";

describe("a refused connected account mails where to reconnect it", () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let sandbox: MastodonSandbox;
  let app: EndpointServer;
  const clock = new ServerClock();
  const firstToken = `first-${randomBytes(16).toString("hex")}`;
  const secondToken = `second-${randomBytes(16).toString("hex")}`;

  before(async () => {
    smtp = await startSmtp();
    // The notifier reads the process's environment (docs/notifications.md); this file runs alone.
    process.env.NOTIFY_SMTP_URL = `smtp://127.0.0.1:${smtp.port}`;
    process.env.NOTIFY_EMAIL_TO = "owner@example.org";
    process.env.NOTIFY_EMAIL_FROM = "possekit@example.org";
    sandbox = await startMastodonSandbox({ accessToken: firstToken, user: "alice" });
    app = await startEndpointServer({
      engine: pgliteEngine,
      targets: [],
      pluginOptions: { schedule: { enabled: true, whenLive: false } },
      config: { fetch: { allowPrivate: true } },
      clock,
    });
  });
  after(async () => {
    await app?.close();
    await closeAll({ sandbox });
    await new Promise((resolve) => smtp?.server.close(() => resolve(undefined)));
  });

  it("names the account and the Accounts page, once, never the token", async () => {
    const session = await app.server.signIn();
    const connected = await fetch(`${app.url}/syndicate/accounts/mastodon`, {
      method: "POST",
      headers: {
        cookie: session.cookie,
        accept: "text/html",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ _csrf: session.csrf, instance: sandbox.url, accessToken: firstToken }),
      redirect: "manual",
    });
    assert.equal(connected.status, 303);
    sandbox.setAccessToken(secondToken);
    await app.createPost({ content: "Sent while the token is revoked", targets: [`${sandbox.url}/@alice`] });
    await until("the owner got a mail", () => smtp.mails.length >= 1);
    await clock.sleeping();
    await looks(schedulerOf(app));
    assert.equal(smtp.mails.length, 1, "one mail for the streak");
    const mail = smtp.mails[0];
    assert.ok(mail);
    assert.deepEqual(mail.to, ["owner@example.org"]);
    const text = textOf(mail);
    const account = `@alice@${new URL(sandbox.url).host}`;
    assert.ok(text.includes(`Subject: possekit: ${account} refused the credentials`), text);
    assert.ok(text.includes(`${app.url}/syndicate/accounts`), "the Accounts page's address");
    assert.match(text, /Reconnect/);
    assert.match(text, /go out by themselves once it is reconnected/);
    assert.doesNotMatch(text, /Check now/, "reconnecting is the whole fix");
    assert.ok(!text.includes(firstToken) && !text.includes(secondToken), "never a token");
  });
});
