import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { postQueries } from "../../src/server/posts/post-service.ts";
import { engines } from "../helpers/databases.ts";
import { openPostService, type PostServiceFixture } from "./post-service-fixture.ts";

const POSTS = 100_000;

/** Names of the indexes a plan reads, found anywhere in EXPLAIN's JSON. */
function indexesUsed(plan: unknown): string[] {
  const names: string[] = [];
  JSON.stringify(plan, (key, value: unknown) => {
    if (key === "Index Name" && typeof value === "string") names.push(value);
    return value;
  });
  return names;
}

for (const engine of engines) {
  describe(`indexes serve lookups among ${POSTS} posts (${engine.name})`, () => {
    let fixture: PostServiceFixture;
    before(async () => {
      fixture = await openPostService(engine);
      // Most posts are long syndicated (no targets left); one in fifty still awaits; some drafts and deleted.
      await fixture.database.query(
        `INSERT INTO posts (url, slug, type, properties, status, published, deleted_at)
         SELECT 'https://example.org/notes/' || n || '/', 'p' || n, 'entry',
                CASE WHEN n % 50 = 0 THEN '{"mp-syndicate-to": ["https://social.example/@me"]}'::jsonb
                     ELSE '{"syndication": ["https://social.example/@me/1"]}'::jsonb END,
                CASE WHEN n % 7 = 0 THEN 'draft' ELSE 'published' END,
                timestamptz '2020-01-01' + n * interval '1 minute',
                CASE WHEN n % 11 = 0 THEN now() END
         FROM generate_series(1, $1::int) AS n`,
        [POSTS],
      );
      await fixture.database.exec("ANALYZE posts");
    });
    after(() => fixture.close());

    const explain = async (sql: string, params: unknown[]) => {
      const { rows } = await fixture.database.query<Record<string, unknown>>(
        `EXPLAIN (FORMAT JSON) ${sql}`,
        params,
      );
      return indexesUsed(rows);
    };

    it("walks the partial index for the next posts awaiting syndication", async () => {
      assert.deepEqual(await explain(postQueries.nextAwaiting, [10]), ["posts_awaiting_syndication"]);
      assert.deepEqual(await explain(postQueries.nextAwaitingAfter, [10, "2020-02-01T00:00:00Z", "40000"]), [
        "posts_awaiting_syndication",
      ]);
      // Only posts naming a configured target, as a run walks them: the same index.
      const uids = ["https://social.example/@me"];
      assert.deepEqual(await explain(postQueries.nextAwaitingNaming, [10, uids]), [
        "posts_awaiting_syndication",
      ]);
      assert.deepEqual(
        await explain(postQueries.nextAwaitingNamingAfter, [10, "2020-02-01T00:00:00Z", "40000", uids]),
        ["posts_awaiting_syndication"],
      );
    });

    it("lists newest first through the (published, id) index", async () => {
      assert.deepEqual(await explain(postQueries.newest, [20]), ["posts_newest_first"]);
      assert.deepEqual(await explain(postQueries.olderThan, [20, "2020-02-01T00:00:00Z", "40000"]), [
        "posts_newest_first",
      ]);
    });

    it("finds a post by URL through the unique index", async () => {
      assert.deepEqual(await explain(postQueries.findByUrl, ["https://example.org/notes/500/"]), [
        "posts_url_key",
      ]);
    });

    it("answers the awaiting posts in order among them", async () => {
      const posts = await fixture.posts.nextAwaitingSyndication(undefined, 3);
      // n = 50 is a published post awaiting syndication (50 is neither a multiple of 7 nor of 11).
      assert.deepEqual(
        posts.map((post) => post.url),
        [50, 100, 150].map((n) => `https://example.org/notes/${n}/`),
      );
    });
  });
}
