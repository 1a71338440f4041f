// A poll that fails still takes its turn: the next one comes after the interval (or the backoff of
// an unavailable remote), counted from the moment the turn was taken, as its hold is. A failing
// remote is not asked at every wake-up of the scheduler (hostile to it, and costly to us), and a
// poll that takes a while (here the test's clock moves on while the remote answers) does not push
// the next turn out by its length: a turn due meanwhile is taken at its moment. A feed whose read
// fails waits its backoff likewise. Both engines, on a test's clock years from real time (the rule
// of src/contract/database-now.ts: the test's clock decides the turn, not the database's).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import { databaseNow } from "../../src/contract/database-now.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { feedOptionsSchema } from "../../src/sources/feeds/feed-options.ts";
import { FeedSource } from "../../src/sources/feeds/feed-source.ts";
import { FeedStore } from "../../src/sources/feeds/feed-store.ts";
import { backoffMs as feedBackoffMs } from "../../src/sources/feeds/http/backoff.ts";
import { feedSourceMigrations } from "../../src/sources/feeds/migrations.ts";
import { FeedParser } from "../../src/sources/feeds/parse/index.ts";
import { MicropubClient } from "../../src/sources/micropub/micropub-client.ts";
import { MicropubSource } from "../../src/sources/micropub/micropub-source.ts";
import { micropubSourceMigrations } from "../../src/sources/micropub/migrations.ts";
import { TestClock } from "../helpers/clock.ts";
import { engines } from "../helpers/databases.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { type Remote, startRemote } from "./remote-micropub.ts";

const POLL_SECONDS = 300;
/** How long the slow remote takes to answer, by the test's clock: well within the interval. */
const SLOW_MS = 20_000;
/** The gate's 503 asks for this (Retry-After), the first backoff of an unavailable remote too. */
const UNAVAILABLE_WAIT_MS = 60_000;
/** Nothing listens here: a feed read there fails at once, and is recorded. */
const UNREACHABLE_FEED = "http://127.0.0.1:9/failing-feed.xml";

for (const engine of engines) {
  describe(`a failed poll still waits its interval (${engine.name})`, () => {
    let remote: Remote;
    let local: TestServer;
    let database: Database;
    const parser = new FeedParser();
    before(async () => {
      remote = await startRemote();
      await remote.create("One post", []);
      local = await startTestServer({ engine, config: { plugins: [] } });
      if (!local.host.database) throw new Error("The host has no database");
      database = local.host.database;
      await migrate(database, micropubSourceMigrations);
      await migrate(database, feedSourceMigrations);
    });
    after(async () => {
      await parser.close();
      await local?.close();
      await remote?.close();
    });

    /** Requests that reached the remote's listing, answered or refused by the gate. */
    const listings = () =>
      [...remote.gate.passed, ...remote.gate.refused].filter((request) => request === "GET q=source").length;

    /** One instance of a source named `name`; `token` is read as each request goes out. */
    const sourceOf = (name: string, clock: TestClock, token: () => string) => {
      const { knownPosts, postSource, logger } = local.host;
      if (!knownPosts || !postSource) throw new Error("The host has no posts");
      return new MicropubSource({
        name,
        pollSeconds: POLL_SECONDS,
        recentPosts: 50,
        client: new MicropubClient({
          endpoint: remote.endpoint,
          token,
          tokenSetting: "REMOTE_TOKEN",
          fetchPolicy: {},
        }),
        database,
        known: knownPosts,
        posts: postSource,
        logger,
        now: clock.now,
      });
    };

    it("a remote that refuses the token: the next poll comes one interval after the failed one began, however long it took", async () => {
      const clock = new TestClock(Date.parse("2031-01-01T00:00:00Z"));
      const began = clock.now();
      // The remote takes SLOW_MS to answer: the test's clock moves on while the request is out.
      const slow = sourceOf("refusing", clock, () => {
        clock.advance(SLOW_MS);
        return "not-the-token";
      });
      await slow.pollIfDue();
      assert.equal(listings(), 1);
      const report = await slow.report();
      assert.equal(report.state, "refused", "the failure is recorded");
      assert.equal(report.lastPollAt?.getTime(), began, "the turn is recorded at its start");
      assert.equal(report.nextPollAt?.getTime(), began + POLL_SECONDS * 1000);

      // Wake-ups before then ask nothing: this instance, and one started since (the row decides).
      const wrong = () => "not-the-token";
      clock.advance(began + POLL_SECONDS * 1000 - 1 - clock.now());
      await slow.pollIfDue();
      await sourceOf("refusing", clock, wrong).pollIfDue();
      assert.equal(listings(), 1, "a failing remote is not asked again before its interval");

      clock.advance(1);
      const next = sourceOf("refusing", clock, wrong);
      await next.pollIfDue();
      assert.equal(listings(), 2, "asked again once its interval has passed");
      assert.equal((await next.report()).lastPollAt?.getTime(), clock.now());
    });

    it("an unavailable remote: asked again after its backoff from the failed poll's start, not at every wake-up", async () => {
      const clock = new TestClock(Date.parse("2032-06-01T00:00:00Z"));
      const began = clock.now();
      remote.gate.mode = "down";
      try {
        const before = listings();
        const source = sourceOf("unavailable", clock, () => {
          clock.advance(SLOW_MS);
          return remote.token;
        });
        await source.pollIfDue();
        assert.equal(listings(), before + 1);
        const report = await source.report();
        assert.equal(report.state, "unavailable");
        assert.equal(report.nextPollAt?.getTime(), began + UNAVAILABLE_WAIT_MS);

        clock.advance(began + UNAVAILABLE_WAIT_MS - 1 - clock.now());
        await source.pollIfDue();
        await sourceOf("unavailable", clock, () => remote.token).pollIfDue();
        assert.equal(listings(), before + 1, "not asked again before its backoff");
        clock.advance(1);
        await sourceOf("unavailable", clock, () => remote.token).pollIfDue();
        assert.equal(listings(), before + 2, "asked again once its backoff has passed");
      } finally {
        remote.gate.mode = "pass";
      }
    });

    it("a feed whose read fails: read again after its backoff, not at every wake-up", async () => {
      const { knownPosts, logger } = local.host;
      if (!knownPosts) throw new Error("The host has no posts");
      const clock = new TestClock(Date.parse("2033-03-01T00:00:00Z"));
      const began = clock.now();
      const start = () =>
        new FeedSource({
          feed: feedOptionsSchema.parse({
            url: UNREACHABLE_FEED,
            targets: ["https://social.example/@me"],
            pollSeconds: POLL_SECONDS,
          }),
          database,
          // FeedSources gives its store the clock it gives its feeds.
          store: new FeedStore(database, databaseNow(clock.now)),
          known: knownPosts,
          logger,
          policy: { allowPrivate: true },
          parser,
          now: clock.now,
        });
      const feed = start();
      const lastFetchAt = async () => {
        const { rows } = await database.query<{ at: Date | string | null }>(
          "SELECT last_fetch_at AS at FROM feed_sources WHERE key = $1",
          [feed.key],
        );
        const at = rows[0]?.at;
        return at === null || at === undefined ? null : new Date(at).getTime();
      };
      await feed.pollIfDue();
      assert.equal(await lastFetchAt(), began, "the failed read is recorded");
      const wait = feedBackoffMs(1, POLL_SECONDS);
      assert.equal(feed.nextFetchAt()?.getTime(), began + wait);

      clock.advance(began + wait - 1 - clock.now());
      await feed.pollIfDue();
      await start().pollIfDue();
      assert.equal(await lastFetchAt(), began, "not read again before its backoff");
      clock.advance(1);
      await start().pollIfDue();
      assert.equal(await lastFetchAt(), clock.now(), "read again once its backoff has passed");
    });
  });
}
