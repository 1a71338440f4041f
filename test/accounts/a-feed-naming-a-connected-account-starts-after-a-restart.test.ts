// A feed in the configuration whose target is an account connected from the Accounts page, on one
// embedded database folder across restarts. The account is connected while no feed names it; the
// server is stopped and started again with the feed naming it: the start's check of the feeds'
// targets sees the connected account (it is registered before that check), and the feed's new entry
// goes to it. Then the account is disconnected: the feed's next entry waits (pending, never failed,
// never tried), the Feeds section says the target is not connected and that its entries wait, and
// connecting the account again sends the entry that waited, once. Feeds and scheduler run on the
// test's clock; Mastodon is the sandbox (dev/sandbox/mastodon-server.ts) over real HTTP.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { EndpointSyndicate } from "../../src/plugin/endpoint-syndicate.ts";
import { openDatabase } from "../../src/server/database/open.ts";
import { TestClock } from "../helpers/clock.ts";
import type { Engine } from "../helpers/databases.ts";
import { eventually, until } from "../helpers/eventually.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { looks } from "../schedule/scheduled-server.ts";
import { FeedSite, type SiteEntry } from "../sources/feeds/feed-site.ts";

const POLL_SECONDS = 300;
const entry = (n: number): SiteEntry => ({
  id: `tag:blog.example,2026:${n}`,
  url: `https://blog.example/2026/04/post-${n}/`,
  title: `Post ${n}`,
  content: `<p>Entry number ${n} of the feed.</p>`,
  published: new Date(Date.UTC(2026, 3, n, 9)).toISOString(),
});

describe("a feed naming a connected account, across a restart and a disconnect (pglite folder)", () => {
  let folder: string;
  let site: FeedSite;
  let sandbox: MastodonSandbox;
  let server: TestServer | undefined;
  let plugin: EndpointSyndicate;
  const clock = new TestClock(Date.now());
  const token = `token-${randomBytes(12).toString("hex")}`;
  // The same key at each start, as a deployment keeps ACCOUNT_SECRETS_KEY (the test's data folders differ).
  const env = { ACCOUNT_SECRETS_KEY: randomBytes(32).toString("base64url") };
  let uid = "";
  // Each start opens the same folder again, as a restarted process does.
  const onFolder = (): Engine => ({
    name: "pglite",
    open: () => openDatabase(folder),
    openBlank: () => Promise.reject(new Error("not used")),
    location: () => Promise.reject(new Error("not used")),
  });
  const start = async (feeds: boolean) => {
    plugin = new EndpointSyndicate(
      {
        schedule: { enabled: true, whenLive: false },
        targets: { checkAtStart: false },
        retry: { baseMs: 100, maxMs: 400 },
        ...(feeds ? { feeds: [{ url: `${site.url}/feed`, targets: [uid], pollSeconds: POLL_SECONDS }] } : {}),
      },
      { env: {}, now: clock.now },
    );
    server = await startTestServer({
      engine: onFolder(),
      config: { plugins: [], fetch: { allowPrivate: true } },
      plugins: [plugin],
      env,
    });
    return server;
  };
  const stop = async () => {
    await server?.close();
    server = undefined;
  };
  const nextRead = async () => {
    const feed = plugin.feeds?.feeds[0];
    assert.ok(feed && plugin.scheduler);
    clock.advance(POLL_SECONDS * 1000);
    const moment = clock.now();
    plugin.scheduler.nudge();
    return eventually("the feed is read", async () => {
      const report = await feed.report();
      return report.lastFetchAt && report.lastFetchAt.getTime() >= moment ? report : undefined;
    });
  };
  /** The account's ledger rows, oldest post first. */
  const ledger = async () =>
    (
      await server?.host.database?.query<{ state: string; permanent: boolean; attempts: number }>(
        "SELECT state, permanent, attempts FROM syndication_targets WHERE target_uid = $1 ORDER BY post_id",
        [uid],
      )
    )?.rows ?? [];
  const connect = async (app: TestServer) => {
    const session = await app.signIn();
    const response = await fetch(`${app.url}/syndicate/accounts/mastodon`, {
      method: "POST",
      headers: {
        cookie: session.cookie,
        accept: "text/html",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ _csrf: session.csrf, instance: sandbox.url, accessToken: token }),
      redirect: "manual",
    });
    assert.equal(response.status, 303, await response.text());
  };

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), "possekit-feed-account-"));
    site = await new FeedSite("atom").start();
    site.entries = [entry(2), entry(1)];
    sandbox = await startMastodonSandbox({ accessToken: token, user: "alice" });
    uid = `${sandbox.url}/@alice`;
  });
  after(async () => {
    await stop();
    await site?.close();
    await sandbox?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it("starts again with the feed naming the account, and sends the feed's new entry to it", async () => {
    await connect(await start(false));
    await stop();
    const app = await start(true);
    assert.ok(
      app.host.syndicators.some((syndicator) => syndicator.info.uid === uid),
      "the connected account is a target after the restart",
    );
    const feed = plugin.feeds?.feeds[0];
    assert.ok(feed);
    await until("the first read", async () => (await feed.report()).lastFetchAt !== null);
    site.entries = [entry(3), entry(2), entry(1)];
    await nextRead();
    await until("the new entry reached the account", () => sandbox.statuses.length === 1);
    assert.match(sandbox.statuses[0]?.text ?? "", /Post 3/);
    await until("the ledger says syndicated", async () => (await ledger())[0]?.state === "syndicated");
  });

  it("keeps the feed's entries waiting while the account is disconnected, and says why", async () => {
    const app = server;
    assert.ok(app);
    const session = await app.signIn();
    const account = await app.host.accounts?.byUid(uid);
    assert.ok(account);
    const disconnected = await fetch(`${app.url}/syndicate/accounts/${account.id}/disconnect`, {
      method: "POST",
      headers: {
        cookie: session.cookie,
        accept: "text/html",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ _csrf: session.csrf }),
      redirect: "manual",
    });
    assert.equal(disconnected.status, 303);
    site.entries = [entry(4), entry(3), entry(2), entry(1)];
    await nextRead();
    const feed = plugin.feeds?.feeds[0];
    assert.ok(feed);
    await until("the entry is known", async () => (await feed.report()).entriesKnown === 4);
    await nextRead();
    assert.ok(plugin.scheduler);
    await looks(plugin.scheduler);
    assert.equal(await app.host.postSource?.countAwaitingSyndication(), 1, "the entry waits to be sent");
    assert.deepEqual(
      (await ledger()).slice(1),
      [],
      "never tried, never failed: nothing was recorded against the missing target",
    );
    assert.equal(sandbox.statuses.length, 1, "nothing more went out");
    const html = await (
      await fetch(`${app.url}/syndicate`, { headers: { cookie: session.cookie, accept: "text/html" } })
    ).text();
    const section = html.slice(html.indexOf('id="feeds-heading"'));
    assert.match(section, /data-missing-target/);
    assert.ok(section.includes(uid), "the section names the target");
    assert.match(section, /not connected/i);
    assert.match(section, /wait/i);

    await connect(app);
    await until("the entry that waited went out", () => sandbox.statuses.length === 2);
    assert.match(sandbox.statuses[1]?.text ?? "", /Post 4/);
    await nextRead();
    assert.equal(sandbox.statuses.length, 2, "once");
  });
});
