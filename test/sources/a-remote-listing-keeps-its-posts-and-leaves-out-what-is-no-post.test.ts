// What one poll of a remote Micropub server keeps (micropub-source.ts), from a listing that holds
// what real servers answer: Indiekit's deleted post (stripped to its URL and marked `deleted`), a
// post with no valid date, a draft, a post the remote lists twice across its pages, an item that is
// no post, a URL another source owns, and the `updated` stamp Indiekit changes on every update. A
// deleted or undated post kept would be sent (or empty its copies); a draft kept as published would
// be sent; `updated` counted as an edit would edit every copy at every poll. The remote is a plain
// HTTP server in the test (another server's answers), the host and its database are real.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { listen, type RunningServer, sendJson } from "../../dev/sandbox/http-kit.ts";
import type { Database } from "../../src/contract/database.ts";
import type { Logger } from "../../src/contract/logger.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { MicropubClient } from "../../src/sources/micropub/micropub-client.ts";
import { MicropubSource } from "../../src/sources/micropub/micropub-source.ts";
import { micropubSourceMigrations } from "../../src/sources/micropub/migrations.ts";
import { TestClock } from "../helpers/clock.ts";
import { engines } from "../helpers/databases.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

const REMOTE = "https://remote.example";
const TAKEN = `${REMOTE}/taken`;

/** mf2 items as q=source lists them, newest first; two pages. */
function listing(edited: { content: string; updated: string }) {
  const item = (slug: string, properties: Record<string, unknown[]>) => ({
    type: ["h-entry"],
    properties: { url: [`${REMOTE}/${slug}`], ...properties },
  });
  const kept = item("kept", {
    published: ["2030-01-01T00:00:00Z"],
    content: [edited.content],
    updated: [edited.updated],
  });
  return [
    [
      kept,
      item("deleted", { published: ["2030-01-02T00:00:00Z"], deleted: ["2030-01-03T00:00:00Z"] }),
      item("undated", { content: ["No date"] }),
      item("badly-dated", { published: ["last Tuesday"], content: ["A date nobody can read"] }),
      item("draft", { published: ["2030-01-04T00:00:00Z"], "post-status": ["draft"], content: ["Not yet"] }),
      { type: ["h-entry"], properties: { content: ["No URL: no post"] } },
    ],
    // The second page lists the first post again (a post published meanwhile shifted the pages).
    [kept, item("taken", { published: ["2030-01-05T00:00:00Z"], content: ["Someone else's"] })],
  ];
}

for (const engine of engines) {
  describe(`a remote listing keeps its posts and leaves out what is no post (${engine.name})`, () => {
    let local: TestServer;
    let database: Database;
    let remote: RunningServer;
    let source: MicropubSource;
    const warnings: string[] = [];
    /** Listing requests the remote answered. */
    let listings = 0;
    let edited = { content: "First words", updated: "2030-01-01T00:00:00Z" };
    // Years from real time: the turn is taken and recorded at the source's own clock.
    const clock = new TestClock(Date.parse("2033-03-01T00:00:00Z"));

    before(async () => {
      const token = "remote-token";
      remote = await listen((request, response) => {
        if (request.headers.authorization !== `Bearer ${token}`) {
          sendJson(response, 401, { error: "unauthorized" });
          return;
        }
        const query = new URL(request.url ?? "/", "http://remote").searchParams;
        listings += 1;
        const pages = listing(edited);
        const page = query.get("after") === "2" ? 1 : 0;
        sendJson(response, 200, { items: pages[page], ...(page === 0 ? { paging: { after: "2" } } : {}) });
      });
      local = await startTestServer({ engine, config: { plugins: [] } });
      if (!local.host.database || !local.host.knownPosts || !local.host.postSource)
        throw new Error("The host has no database");
      database = local.host.database;
      await migrate(database, micropubSourceMigrations);
      // The URL another source keeps already: never taken over.
      await local.host.knownPosts.record({
        origin: "micropub:other",
        url: TAKEN,
        properties: { content: "Theirs" },
        published: new Date("2030-01-05T00:00:00Z"),
      });
      const logger: Logger = {
        ...local.host.logger,
        warn: (message) => {
          warnings.push(message);
        },
      };
      source = new MicropubSource({
        name: "remote",
        pollSeconds: 300,
        recentPosts: 50,
        client: new MicropubClient({
          endpoint: `${remote.url}/micropub`,
          token: () => token,
          tokenSetting: "REMOTE_TOKEN",
          fetchPolicy: {},
        }),
        database,
        known: local.host.knownPosts,
        posts: local.host.postSource,
        logger,
        now: clock.now,
      });
    });
    after(async () => {
      await source?.idle();
      await local?.close();
      await remote?.close();
    });

    const kept = async () => {
      const { rows } = await database.query<{
        url: string;
        status: string;
        properties: Record<string, unknown>;
      }>("SELECT url, status, properties FROM posts WHERE origin = 'micropub:remote' ORDER BY url");
      return rows;
    };

    it("keeps the dated posts, the draft as a draft, each once; leaves out the deleted, the undated, a non-post and another source's", async () => {
      const summary = await source.poll();
      assert.deepEqual(summary, {
        listed: 6,
        recorded: { new: 2, changed: 0, unchanged: 0 },
        // deleted, undated, badly dated, taken, and the item without a URL.
        skipped: 5,
        writtenBack: 0,
      });
      const rows = await kept();
      assert.deepEqual(
        rows.map((row) => [row.url, row.status]),
        [
          [`${REMOTE}/draft`, "draft"],
          [`${REMOTE}/kept`, "published"],
        ],
      );
      assert.equal(rows[1]?.properties.content, "First words");
      assert.equal(rows[1]?.properties.updated, undefined, "the remote's bookkeeping is not kept");
      const [theirs] = (
        await database.query<{ origin: string }>("SELECT origin FROM posts WHERE url = $1", [TAKEN])
      ).rows;
      assert.equal(theirs?.origin, "micropub:other");
      for (const slug of ["undated", "badly-dated"]) {
        assert.ok(
          warnings.some(
            (warning) => warning.includes(`${REMOTE}/${slug}`) && warning.includes("no valid published date"),
          ),
          `${slug} is named in a warning`,
        );
      }
      assert.ok(
        warnings.some((warning) =>
          warning.includes(
            `${TAKEN} on ${remote.url}/micropub is not kept: ${TAKEN} is known already from micropub:other`,
          ),
        ),
        "the warning says why",
      );
      assert.ok(!warnings.some((warning) => warning.includes(`${REMOTE}/deleted`)), "a deletion is no fault");
    });

    it("a new `updated` stamp alone is no change; new words are one", async () => {
      edited = { ...edited, updated: "2030-02-01T00:00:00Z" };
      const again = await source.poll();
      assert.deepEqual(again.recorded, { new: 0, changed: 0, unchanged: 2 });
      edited = { content: "Second words", updated: "2030-02-02T00:00:00Z" };
      const changed = await source.poll();
      assert.deepEqual(changed.recorded, { new: 0, changed: 1, unchanged: 1 });
      assert.equal((await kept())[1]?.properties.content, "Second words");
    });

    it("takes its turn at its own clock, and the next one an interval later", async () => {
      const before = (await source.report()).lastPollAt;
      const asked = listings;
      await source.pollIfDue();
      assert.equal(listings, asked + 2, "the turn polls: both pages are read");
      const report = await source.report();
      assert.notEqual(report.lastPollAt?.getTime(), before?.getTime());
      assert.equal(report.lastPollAt?.getTime(), clock.now());
      assert.equal(report.nextPollAt?.getTime(), clock.now() + 300_000);
      assert.equal(source.nextPollAt()?.getTime(), clock.now() + 300_000);
      assert.equal(source.endpoint, `${remote.url}/micropub`);
      assert.equal(source.origin, "micropub:remote");
    });

    it("lists no more than its recentPosts: the next page is not asked for", async () => {
      const capped = new MicropubSource({
        name: "capped",
        pollSeconds: 300,
        recentPosts: 2,
        client: new MicropubClient({
          endpoint: `${remote.url}/micropub`,
          token: () => "remote-token",
          tokenSetting: "REMOTE_TOKEN",
          fetchPolicy: {},
        }),
        database,
        known: local.host.knownPosts ?? assert.fail("no known posts"),
        posts: local.host.postSource ?? assert.fail("no post source"),
        logger: local.host.logger,
      });
      const asked = listings;
      const summary = await capped.poll();
      assert.equal(listings, asked + 1);
      assert.equal(summary.listed, 5, "the first page's posts");
      await capped.idle();
    });
  });
}
