// A polled source's turn is a lease between instances sharing a database, so it follows the rule of
// every lease of ours (src/contract/database-now.ts): the database's clock decides when the turn is
// due and how long it is held, never the clock of the process asking. Here this process's clock is
// put a day ahead (node:test's Date mock) while PostgreSQL keeps real time: a turn another instance
// holds stays held, and a turn taken or finished is held from the database's now. The embedded
// database runs inside this process and so shares its clock: there those promises hold by
// construction. The rule's other half is tested on both: a test's clock, when given (here years from
// real time), decides the turn instead.
import assert from "node:assert/strict";
import { after, before, describe, it, mock } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import { databaseNow } from "../../src/contract/database-now.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { feedOptionsSchema } from "../../src/sources/feeds/feed-options.ts";
import { FeedSource } from "../../src/sources/feeds/feed-source.ts";
import { FeedStore } from "../../src/sources/feeds/feed-store.ts";
import { feedSourceMigrations } from "../../src/sources/feeds/migrations.ts";
import { FeedParser } from "../../src/sources/feeds/parse/index.ts";
import { MicropubClient } from "../../src/sources/micropub/micropub-client.ts";
import { MicropubSource } from "../../src/sources/micropub/micropub-source.ts";
import { micropubSourceMigrations } from "../../src/sources/micropub/migrations.ts";
import { TestClock } from "../helpers/clock.ts";
import { engines } from "../helpers/databases.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { type Remote, startRemote } from "./remote-micropub.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
const POLL_SECONDS = 60;
/** Nothing listens here: a feed read there fails at once, and is recorded. */
const UNREACHABLE_FEED = "http://127.0.0.1:9/feed.xml";

/** Runs `work` with this process's clock a day ahead of real time. */
async function aDayAhead<T>(work: () => Promise<T>): Promise<T> {
  mock.timers.enable({ apis: ["Date"], now: Date.now() + DAY_MS });
  try {
    return await work();
  } finally {
    mock.timers.reset();
  }
}

for (const engine of engines) {
  describe(`polled sources take their turn by the database's clock (${engine.name})`, () => {
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
      mock.timers.reset();
      await parser.close();
      await local?.close();
      await remote?.close();
    });

    /** Milliseconds from the database's now to `column` of the row `where` picks. */
    const leftOf = async (sql: string, key: string) => {
      const { rows } = await database.query<{ left: number }>(sql, [key]);
      return Number(rows[0]?.left);
    };
    const listings = () => remote.gate.passed.filter((request) => request === "GET q=source").length;

    it("a remote Micropub source: a turn held by another instance stays held, a turn taken lasts one interval", async () => {
      const { knownPosts, postSource, logger } = local.host;
      if (!knownPosts || !postSource) throw new Error("The host has no posts");
      const start = (origin = "ahead", now?: () => number) =>
        new MicropubSource({
          name: origin,
          pollSeconds: POLL_SECONDS,
          recentPosts: 50,
          client: new MicropubClient({
            endpoint: remote.endpoint,
            token: () => remote.token,
            tokenSetting: "REMOTE_TOKEN",
            fetchPolicy: {},
          }),
          database,
          known: knownPosts,
          posts: postSource,
          logger,
          ...(now ? { now } : {}),
        });
      const left = () =>
        leftOf(
          "SELECT (extract(epoch FROM next_poll_at - now()) * 1000)::float8 AS left FROM micropub_sources WHERE origin = $1",
          "micropub:ahead",
        );
      const nextPollAt = async (origin: string) => {
        const { rows } = await database.query<{ at: Date | string }>(
          "SELECT next_poll_at AS at FROM micropub_sources WHERE origin = $1",
          [origin],
        );
        return new Date(rows[0]?.at ?? Number.NaN).getTime();
      };
      await aDayAhead(async () => {
        // Another instance took the turn for an hour, by the database's clock.
        await database.query(
          "INSERT INTO micropub_sources (origin, next_poll_at) VALUES ($1, now() + interval '1 hour')",
          ["micropub:ahead"],
        );
        await start().pollIfDue();
      });
      assert.equal(listings(), 0, "the turn another instance holds is not taken");

      const held = await aDayAhead(async () => {
        await database.query(
          "UPDATE micropub_sources SET next_poll_at = now() - interval '1 second' WHERE origin = $1",
          ["micropub:ahead"],
        );
        // An instance started now (one that already ran keeps the moment it was told until then).
        await start().pollIfDue();
        return left();
      });
      assert.equal(listings(), 1, "the turn due by the database's clock is taken");
      assert.ok(held > (POLL_SECONDS - 10) * 1000 && held <= POLL_SECONDS * 1000, `next poll in ${held} ms`);

      // A test's clock years from real time decides instead, with no real wait.
      const clock = new TestClock(Date.parse("2031-01-01T00:00:00Z"));
      const tested = start("tested", clock.now);
      await tested.pollIfDue();
      assert.equal(listings(), 2, "due at once by the test's clock");
      assert.equal(await nextPollAt("micropub:tested"), clock.now() + POLL_SECONDS * 1000);
      clock.advance(POLL_SECONDS * 1000 - 1);
      await start("tested", clock.now).pollIfDue();
      assert.equal(listings(), 2, "held until the test's clock reaches the interval");
      clock.advance(1);
      await start("tested", clock.now).pollIfDue();
      assert.equal(listings(), 3, "taken once the test's clock reaches it");
    });

    it("a feed: a turn held by another instance stays held, a read's next turn counts from the database's now", async () => {
      const { knownPosts, logger } = local.host;
      if (!knownPosts) throw new Error("The host has no posts");
      const start = (url = UNREACHABLE_FEED, now?: () => number) =>
        new FeedSource({
          feed: feedOptionsSchema.parse({
            url,
            targets: ["https://social.example/@me"],
            pollSeconds: POLL_SECONDS,
          }),
          database,
          // FeedSources gives its store the clock it gives its feeds.
          store: new FeedStore(database, databaseNow(now)),
          known: knownPosts,
          logger,
          policy: { allowPrivate: true },
          parser,
          ...(now ? { now } : {}),
        });
      const key = start().key;
      const row = async (feedKey = key) => {
        const { rows } = await database.query<{ last_fetch_at: Date | null; next_fetch_at: Date | string }>(
          "SELECT last_fetch_at, next_fetch_at FROM feed_sources WHERE key = $1",
          [feedKey],
        );
        return rows[0];
      };
      const left = () =>
        leftOf(
          "SELECT (extract(epoch FROM next_fetch_at - now()) * 1000)::float8 AS left FROM feed_sources WHERE key = $1",
          key,
        );
      await aDayAhead(async () => {
        await database.query(
          "INSERT INTO feed_sources (key, url, next_fetch_at) VALUES ($1, $1, now() + interval '1 hour')",
          [key],
        );
        await start().pollIfDue();
      });
      assert.equal((await row())?.last_fetch_at, null, "the turn another instance holds is not taken");

      const next = await aDayAhead(async () => {
        await database.query(
          "UPDATE feed_sources SET next_fetch_at = now() - interval '1 second' WHERE key = $1",
          [key],
        );
        await start().pollIfDue();
        return left();
      });
      assert.notEqual((await row())?.last_fetch_at, null, "the turn due by the database's clock is taken");
      assert.ok(
        next > 0 && next <= 60 * 60 * 1000,
        `next read in ${next} ms, counted from the database's now`,
      );

      // A test's clock years from real time decides instead: the turn is taken at once, and the
      // next read is counted from the test's now.
      const clock = new TestClock(Date.parse("2031-01-01T00:00:00Z"));
      const elsewhere = "http://127.0.0.1:9/other-feed.xml";
      const tested = start(elsewhere, clock.now);
      await tested.pollIfDue();
      const read = await row(tested.key);
      assert.notEqual(read?.last_fetch_at, null, "due at once by the test's clock");
      const after = new Date(read?.next_fetch_at ?? Number.NaN).getTime() - clock.now();
      assert.ok(after > 0 && after <= 60 * 60 * 1000, `next read ${after} ms after the test's now`);
    });
  });
}
