// Two possekit instances share one database (PostgreSQL, each with its own connections; on PGlite
// two write-backs in one process), and a feed's site whose Micropub server does not deduplicate:
// it appends every value an update adds, as WordPress and Indiekit do. One instance makes a copy
// and writes its link back in the background; while its read of the site's post is under way, the
// other instance's turn finds the same post owed its link. Without a claim both read the post
// before either updates it, and the site shows the link twice. With the post's claim taken in the
// database, exactly one update carries the link, and later turns send it never again. A holder that
// crashed (its claim never let go) blocks the post for one lease, not for ever.
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import type { Database } from "../../../src/contract/database.ts";
import { migrate } from "../../../src/server/database/migrate.ts";
import { openPostgres } from "../../../src/server/database/postgres.ts";
import { feedKeyOf, feedOptionsSchema, feedOrigin } from "../../../src/sources/feeds/feed-options.ts";
import { feedWriteBack } from "../../../src/sources/feeds/feed-write-back.ts";
import type { LinkWriteBack } from "../../../src/sources/micropub/link-write-back.ts";
import { DEFAULT_TIMEOUT_MS } from "../../../src/sources/micropub/micropub-client.ts";
import { micropubSourceMigrations } from "../../../src/sources/micropub/migrations.ts";
import { sharedDatabase } from "../../endpoint/endpoint-server.ts";
import { TestClock } from "../../helpers/clock.ts";
import { engines } from "../../helpers/databases.ts";
import { until } from "../../helpers/eventually.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { type AppendingMicropubServer, startAppendingMicropubServer } from "../appending-micropub-server.ts";

const TURN_MS = 60_000;
/** link-write-back.ts: four request timeouts. */
const LEASE_MS = 4 * DEFAULT_TIMEOUT_MS;
const FEED_URL = "https://blog.example/feed.xml";

interface Instance {
  server: TestServer;
  links: LinkWriteBack;
  /** The core writes a copy's link to the post's row (and tells the origin, which writes back). */
  copied(url: string, link: string): Promise<void>;
  /** One turn of the feed's write-back, as the scheduler takes it. */
  turn(): Promise<void>;
}

for (const engine of engines) {
  describe(`two instances racing on one post write its link back once (${engine.name})`, () => {
    const clock = new TestClock();
    let site: AppendingMicropubServer;
    let instances: [Instance, Instance];
    const databases: Database[] = [];
    let drop = async () => {};

    before(async () => {
      site = await startAppendingMicropubServer();
      if (engine.name === "postgres") {
        // Two instances: two pools on one database, as two processes would have.
        const location = await engine.location();
        drop = location.drop;
        databases.push(await openPostgres(location.url), await openPostgres(location.url));
      } else {
        const database = await engine.open();
        databases.push(database, database);
      }
      const feed = feedOptionsSchema.parse({
        url: FEED_URL,
        targets: ["https://mastodon.example/@me"],
        micropub: { endpoint: site.endpoint, tokenEnv: "SITE_TOKEN" },
      });
      const started: Instance[] = [];
      for (const database of databases) {
        const server = await startTestServer({
          engine: sharedDatabase(database),
          config: { plugins: [], fetch: { allowPrivate: true } },
        });
        const { knownPosts, postSource, logger } = server.host;
        if (!knownPosts || !postSource) throw new Error("The host has no database");
        await migrate(database, micropubSourceMigrations);
        const links = feedWriteBack(feed, {
          origin: feedOrigin(feedKeyOf(FEED_URL)),
          database,
          known: knownPosts,
          logger,
          policy: { allowPrivate: true },
          env: { SITE_TOKEN: site.token },
          now: clock.now,
        });
        if (!links) throw new Error("The feed has no write-back");
        knownPosts.addOrigin(links);
        started.push({
          server,
          links,
          async copied(url, link) {
            await postSource.update(url, { add: { syndication: [link] } });
          },
          turn: () =>
            links.pollIfDue(
              TURN_MS,
              async () => ({ writtenBack: await links.writeBackDrifted() }),
              "write links back",
            ),
        });
      }
      instances = started as [Instance, Instance];
    });

    // A test that fails while reads are held leaves none held for the next.
    afterEach(() => site.releaseReads());

    after(async () => {
      for (const instance of instances ?? []) await instance.server.close();
      for (const database of new Set(databases)) await database.close();
      await drop();
      await site?.close();
    });

    /** A feed entry both instances know of, its post on the site without links. */
    async function entry(slug: string): Promise<string> {
      const url = `https://blog.example/notes/${slug}`;
      const published = new Date(clock.now() - 3_600_000);
      site.posts.set(url, { content: [`About ${slug}`], published: [published.toISOString()] });
      const known = instances[0].server.host.knownPosts;
      await known?.record({
        origin: feedOrigin(feedKeyOf(FEED_URL)),
        url,
        properties: { content: `About ${slug}`, published: published.toISOString() },
        published,
        status: "published",
      });
      return url;
    }

    const idle = () => Promise.all(instances.map((instance) => instance.links.idle()));

    it("one instance's background write-back and the other's turn: one update carries the link", async () => {
      const [first, second] = instances;
      // Both instances' first turns (the catch-up at start) are behind them: nothing is owed yet.
      await first.turn();
      await second.turn();
      const url = await entry("herons");
      const link = "https://mastodon.example/@me/1001";

      site.holdReads = true;
      await first.copied(url, link);
      await until("the first instance reads the site's post", () => site.heldReads() === 1);
      // The other instance's turn comes while that read is under way, and finds the post owed.
      clock.advance(TURN_MS);
      const turn = second.turn();
      let turnEnded = false;
      void turn.then(() => {
        turnEnded = true;
      });
      await until(
        "the second instance's turn ends, or reads the post too",
        () => turnEnded || site.heldReads() === 2,
      );
      site.releaseReads();
      await turn;
      await idle();

      assert.deepEqual(site.posts.get(url)?.syndication, [link], "the site holds the link once");
      assert.equal(site.updatesAdding(url, "syndication", link).length, 1, "one update carries the link");

      // Confirmed written: neither instance sends it again, at a turn or after another change.
      clock.advance(TURN_MS);
      await Promise.all([first.turn(), second.turn()]);
      await second.copied(url, link);
      await idle();
      assert.equal(site.updatesAdding(url, "syndication", link).length, 1, "never sent again");
      assert.deepEqual(site.posts.get(url)?.syndication, [link]);
    });

    it("a link that reaches the row while the other instance holds the post goes with it at once", async () => {
      const [first, second] = instances;
      const url = await entry("egrets");
      const links = ["https://mastodon.example/@me/1003", "https://bsky.example/post/1003"];
      site.holdReads = true;
      await first.copied(url, links[0] as string);
      await until("the first instance reads the site's post", () => site.heldReads() === 1);
      // A second copy, made by the other instance, while the first holds the post: left to it.
      await second.copied(url, links[1] as string);
      await second.links.idle();
      assert.equal(site.heldReads(), 1, "the other instance did not read the post");
      site.releaseReads();
      await idle();
      // No turn came: the holder looked again before letting go.
      assert.deepEqual(site.posts.get(url)?.syndication, links);
      for (const link of links) assert.equal(site.updatesAdding(url, "syndication", link).length, 1, link);
    });

    it("a holder that never lets go blocks the post for one lease, then the link is written once", async () => {
      const [first, second] = instances;
      const url = await entry("spoonbills");
      const link = "https://mastodon.example/@me/1002";
      // The first instance claims the post and dies before letting go.
      assert.ok(await first.links.claims.take(url), "the post was free");

      await second.copied(url, link);
      await idle();
      clock.advance(TURN_MS);
      await second.turn();
      assert.equal(site.updatesAdding(url, "syndication", link).length, 0, "left to the holder");

      clock.advance(LEASE_MS - TURN_MS + 1);
      await second.turn();
      await idle();
      assert.equal(site.updatesAdding(url, "syndication", link).length, 1, "written once the lease ran out");
      assert.deepEqual(site.posts.get(url)?.syndication, [link]);
    });
  });
}
