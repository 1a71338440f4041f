// Decision 0039: a site that publishes a feed and has a Micropub endpoint of its own (here
// another possekit, behind a gate that can make it look down) gets each copy's link written back
// to the entry's post with a Micropub update (`add: {syndication}`), exactly once: a new entry in
// the feed is copied to the sandbox Mastodon, and the site's server receives one update with that
// link. The site down at copy time gets it at the next tick (sooner than the feed's interval, with
// a backoff); a token it refuses is shown on /health and on the page, naming the variable; a
// possekit that stops between the copy and the write-back sends it when it starts again. A site that
// redirects the write-back to another origin never receives the token there.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { listen } from "../../../dev/sandbox/http-kit.ts";
import type { Database } from "../../../src/contract/database.ts";
import { EndpointSyndicate } from "../../../src/plugin/endpoint-syndicate.ts";
import type { FeedSource } from "../../../src/sources/feeds/feed-source.ts";
import type { LinkWriteBackReport } from "../../../src/sources/micropub/link-write-back.ts";
import type { Scheduler } from "../../../src/syndication/due/scheduler.ts";
import { closeAll, sharedDatabase, startTarget, type Target, until } from "../../endpoint/endpoint-server.ts";
import { TestClock } from "../../helpers/clock.ts";
import { pgliteEngine } from "../../helpers/databases.ts";
import { eventually } from "../../helpers/eventually.ts";
import { healthOf } from "../../helpers/health.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { type Remote, startRemote } from "../remote-micropub.ts";
import { FeedSite, type SiteEntry } from "./feed-site.ts";

const POLL_SECONDS = 300;
const TOKEN_ENV = "SITE_MICROPUB_TOKEN";

interface Possekit {
  server: TestServer;
  feed: FeedSource;
  scheduler: Scheduler;
  /** The write-back's state as the feed reports it. */
  writeBack(): Promise<LinkWriteBackReport>;
  /** Moves the clock on by `ms`, wakes the scheduler and waits for the write-back's turn to end. */
  tick(ms: number): Promise<LinkWriteBackReport>;
  /** The feed's entry as /health shows it. */
  health(): Promise<{ write_back?: { state: string; error?: string } }>;
}

interface Health {
  "endpoint-syndicate"?: { feeds?: Array<{ write_back?: { state: string; error?: string } }> };
}

describe("a feed's site with a Micropub endpoint gets the copies' links", () => {
  let target: Target;
  let remote: Remote;
  let site: FeedSite;
  let database: Database;
  let possekit: Possekit | undefined;
  const env: Record<string, string> = {};
  const started = Date.now();
  const clock = new TestClock(started);
  let day = 0;

  async function start(): Promise<Possekit> {
    const plugin = new EndpointSyndicate(
      {
        schedule: { enabled: true, whenLive: false },
        targets: { checkAtStart: false },
        retry: { baseMs: 100, maxMs: 400 },
        feeds: [
          {
            url: `${site.url}/feed`,
            targets: [target.uid],
            pollSeconds: POLL_SECONDS,
            micropub: { endpoint: remote.endpoint, tokenEnv: TOKEN_ENV },
          },
        ],
      },
      { env, now: clock.now },
    );
    const server = await startTestServer({
      engine: sharedDatabase(database),
      config: { plugins: [], fetch: { allowPrivate: true } },
      plugins: [target.syndicator(), plugin],
    });
    const feed = plugin.feeds?.feeds[0];
    const scheduler = plugin.scheduler;
    if (!feed?.writeBack || !scheduler) throw new Error("The endpoint started without its feed's write-back");
    const writeBack = feed.writeBack;
    return {
      server,
      feed,
      scheduler,
      writeBack: () => writeBack.report(),
      async tick(ms) {
        clock.advance(ms);
        const moment = clock.now();
        scheduler.nudge();
        return eventually("the write-back's turn ends", async () => {
          const report = await writeBack.report();
          return !report.polling && (report.lastPollAt?.getTime() ?? 0) >= moment ? report : undefined;
        });
      },
      async health() {
        const body = (await healthOf(server)) as Health;
        return body["endpoint-syndicate"]?.feeds?.[0] ?? {};
      },
    };
  }

  /** A post on the site (its own possekit) and its entry, newest first in the feed. */
  async function publish(title: string): Promise<string> {
    const url = await remote.create(title, []);
    day += 1;
    const entry: SiteEntry = {
      id: url,
      url,
      title,
      content: `<p>${title}</p>`,
      // In the past, by the real clock that the core's schedule reads, and each newer than the last.
      published: new Date(started - 3_600_000 + day * 60_000).toISOString(),
    };
    site.entries = [entry, ...site.entries];
    return url;
  }

  const updatesOf = (url: string) => remote.gate.passed.filter((request) => request === `POST update ${url}`);
  const copiesOf = (title: string) => target.sandbox.statuses.filter((status) => status.text.includes(title));
  const running = () => possekit as Possekit;

  /** The feed's write-back line on the Syndicate page: its text, and when its next attempt is. */
  async function writeBackLine(): Promise<{ text: string; next: string | undefined }> {
    const { cookie } = await running().server.signIn();
    const page = await (await fetch(`${running().server.url}/syndicate`, { headers: { cookie } })).text();
    const line = /<div class="feed-write-back[^"]*" id="write-back-[^"]+">([\s\S]*?)<\/div>/.exec(page)?.[1];
    assert.ok(line, "the feed shows its write-back");
    return {
      text: line
        .replace(/<[^>]+>/g, " ")
        .replace(/\s+/g, " ")
        .replace(/ ;/g, ";")
        .trim(),
      next: /<time datetime="([^"]+)"/.exec(line)?.[1],
    };
  }

  /** A new entry copied while the site's Micropub server answers 503: its write-back failed. */
  async function copiedWhileTheSiteIsDown(title: string): Promise<string> {
    remote.gate.mode = "down";
    const url = await publish(title);
    await running().tick(POLL_SECONDS * 1000);
    await until("the copy is made", () => copiesOf(title).length === 1);
    await eventually("the write-back fails", async () =>
      (await running().writeBack()).state === "unavailable" ? true : undefined,
    );
    return url;
  }

  before(async () => {
    target = await startTarget();
    remote = await startRemote();
    env[TOKEN_ENV] = remote.token;
    site = await new FeedSite("atom").start();
    database = await pgliteEngine.open();
    await publish("An old post");
    possekit = await start();
    await eventually("the first read", async () =>
      (await running().feed.report()).lastFetchAt ? true : undefined,
    );
  });
  after(async () => {
    await possekit?.server.close();
    await closeAll(site, remote, target);
    await database?.close();
  });

  it("a new entry: one copy, and the site's Micropub server receives exactly one update with its link", async () => {
    const url = await publish("Herons at dawn");
    await running().tick(POLL_SECONDS * 1000);
    await until("the link is written back to the site", () => updatesOf(url).length === 1);
    const copies = copiesOf("Herons at dawn");
    assert.equal(copies.length, 1);
    assert.deepEqual((await remote.properties(url)).syndication, [copies[0]?.url]);

    // Two more turns: read again, nothing more goes to the site.
    await running().tick(POLL_SECONDS * 1000);
    const report = await running().tick(POLL_SECONDS * 1000);
    assert.equal(report.state, "ok", report.error ?? "");
    assert.equal(updatesOf(url).length, 1, "the link is never sent twice");
    assert.equal(
      remote.gate.passed.filter((request) => request.startsWith("POST")).length,
      1,
      "no update for the entries without a copy",
    );
    assert.equal((await running().health()).write_back?.state, "ok");
    const line = await writeBackLine();
    assert.match(line.text, new RegExp(`^Links written back to ${remote.endpoint} ok; next attempt `));
    assert.equal(line.next, report.nextPollAt?.toISOString());
  });

  it("the site down at copy time: the link is written at the next tick, with a backoff, once", async () => {
    const url = await copiedWhileTheSiteIsDown("Grebes diving");
    assert.equal((await running().health()).write_back?.state, "unavailable");
    // The feed's next turn: the site is still down, and is asked again a minute later, not in five.
    const failed = await running().tick(POLL_SECONDS * 1000);
    assert.equal(failed.state, "unavailable");
    assert.equal(failed.nextPollAt?.getTime(), clock.now() + 60_000);
    assert.equal(updatesOf(url).length, 0);
    const line = await writeBackLine();
    assert.ok(
      line.text.startsWith(`Links written back to ${remote.endpoint} failing (${remote.endpoint} answered`),
      line.text,
    );
    assert.ok(line.text.includes("503"), line.text);
    assert.equal(line.next, new Date(clock.now() + 60_000).toISOString(), "the next attempt, a minute on");

    remote.gate.mode = "pass";
    const written = await running().tick(60_000);
    assert.equal(written.state, "ok", written.error ?? "");
    assert.equal(updatesOf(url).length, 1);
    assert.deepEqual((await remote.properties(url)).syndication, [copiesOf("Grebes diving")[0]?.url]);
    assert.equal(copiesOf("Grebes diving").length, 1, "never a second copy");
  });

  it("a token the site refuses: an error on /health and on the page naming the variable; sent once it is fixed", async () => {
    env[TOKEN_ENV] = "a-token-the-site-never-issued";
    const url = await publish("Kingfisher");
    await running().tick(POLL_SECONDS * 1000);
    await until("the copy is made", () => copiesOf("Kingfisher").length === 1);
    const report = await eventually("the token is refused", async () => {
      const current = await running().writeBack();
      return current.state === "refused" ? current : undefined;
    });
    assert.ok(
      report.error?.startsWith(`the token in ${TOKEN_ENV} was refused by ${remote.endpoint}: `),
      report.error ?? "",
    );
    assert.ok(!report.error?.includes("a-token-the-site-never-issued"), "the token is never shown");
    const health = await running().health();
    assert.equal(health.write_back?.state, "refused");
    assert.equal(health.write_back?.error, report.error);
    const { cookie } = await running().server.signIn();
    const page = await (await fetch(`${running().server.url}/syndicate`, { headers: { cookie } })).text();
    assert.match(page, /class="flash flash-error write-back-refused"/);
    assert.ok(page.includes(TOKEN_ENV), "the page names the variable to fix");
    const line = await writeBackLine();
    assert.ok(
      line.text.startsWith(
        `Links written back to ${remote.endpoint} failing (the token in ${TOKEN_ENV} was refused`,
      ),
      line.text,
    );

    env[TOKEN_ENV] = remote.token;
    const fixed = await running().tick(POLL_SECONDS * 1000);
    assert.equal(fixed.state, "ok", fixed.error ?? "");
    assert.equal(updatesOf(url).length, 1);
    assert.deepEqual((await remote.properties(url)).syndication, [copiesOf("Kingfisher")[0]?.url]);
  });

  it("possekit stopped between the copy and the write-back sends it when it starts again, once", async () => {
    const url = await copiedWhileTheSiteIsDown("Little egret");
    await running().server.close();
    possekit = undefined;

    remote.gate.mode = "pass";
    possekit = await start();
    // No tick: the write-backs owed are looked for as the new process starts.
    await until("the link is written back after the restart", () => updatesOf(url).length === 1);
    assert.deepEqual((await remote.properties(url)).syndication, [copiesOf("Little egret")[0]?.url]);
    assert.equal(copiesOf("Little egret").length, 1, "never a second copy");
    const posts = remote.gate.passed.filter((request) => request.startsWith("POST"));
    assert.equal(posts.length, 4, `one update per copy, no more: ${posts.join(", ")}`);
  });

  it("a site that redirects the write-back to another origin: the token is not sent there", async () => {
    const seen: Array<string | undefined> = [];
    const elsewhere = await listen((request, response) => {
      seen.push(request.headers.authorization);
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    try {
      remote.gate.redirectTo = elsewhere.url;
      remote.gate.mode = "redirect";
      await publish("Spoonbill");
      await running().tick(POLL_SECONDS * 1000);
      await until("the copy is made", () => copiesOf("Spoonbill").length === 1);
      await until("the write-back follows the redirect", () => seen.length > 0);
      assert.deepEqual(
        seen,
        seen.map(() => undefined),
        "no Authorization reached the other origin",
      );
    } finally {
      remote.gate.mode = "pass";
      await elsewhere.close();
    }
  });
});
