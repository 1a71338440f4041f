// The changes a trigger notes on `posts` (post-changes.ts): a run takes them oldest first, as many as
// it asks for, and forgets one only when it was followed; a change noted again after it was read is
// kept for the next pass. A slip here forgets an edit (the copies keep the old text) or follows the
// same change for ever.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { postMigrations } from "../../src/server/posts/migrations.ts";
import { PostChanges } from "../../src/syndication/due/post-changes.ts";
import { syndicationMigrations } from "../../src/syndication/migrations.ts";
import { engines } from "../helpers/databases.ts";

for (const engine of engines) {
  describe(`a noticed post change is forgotten only once followed (${engine.name})`, () => {
    let database: Database;
    let changes: PostChanges;
    const posts: string[] = [];

    /** A post with a copy: its edits are noticed. */
    const postWithCopy = async (slug: string) => {
      const result = await database.query<{ id: string }>(
        `INSERT INTO posts (url, slug, properties, status, published)
         VALUES ($1, $2, '{"content":"first"}'::jsonb, 'published', now()) RETURNING id::text AS id`,
        [`https://site.example/${slug}/`, slug],
      );
      const id = result.rows[0]?.id ?? "";
      await database.query(
        `INSERT INTO syndication_targets (post_id, target_uid, state, idempotency_key)
         VALUES ($1::bigint, 'https://social.example/@me', 'syndicated', $2)`,
        [id, slug],
      );
      return id;
    };
    const edit = (id: string, content: string) =>
      database.query(
        "UPDATE posts SET properties = jsonb_set(properties, '{content}', to_jsonb($2::text)) WHERE id = $1::bigint",
        [id, content],
      );

    before(async () => {
      database = await engine.open();
      await migrate(database, [...postMigrations, ...syndicationMigrations]);
      changes = new PostChanges(database);
      for (const slug of ["one", "two", "three"]) posts.push(await postWithCopy(slug));
    });
    after(() => database.close());

    it("reads the changes oldest first, no more than asked, each with its moment to the microsecond", async () => {
      const [one, two, three] = posts as [string, string, string];
      // Edited in the order three, one, two.
      await edit(three, "edited");
      await edit(one, "edited");
      await edit(two, "edited");
      const all = await changes.noticed(10);
      assert.deepEqual(
        all.map((change) => change.postId),
        [three, one, two],
      );
      for (const change of all) assert.match(change.noticedAt, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d+/);
      assert.deepEqual(
        (await changes.noticed(2)).map((change) => change.postId),
        [three, one],
      );
    });

    it("forgets a change once followed, and only that one", async () => {
      const [first] = await changes.noticed(1);
      assert.ok(first);
      await changes.followed(first);
      const left = await changes.noticed(10);
      assert.deepEqual(
        left.map((change) => change.postId),
        posts.slice(0, 2),
      );
    });

    it("keeps a change noted again after it was read, for the next pass", async () => {
      const [read] = await changes.noticed(1);
      assert.ok(read);
      await edit(read.postId, "edited again");
      await changes.followed(read);
      const left = await changes.noticed(10);
      assert.ok(
        left.some((change) => change.postId === read.postId && change.noticedAt !== read.noticedAt),
        "the second edit is still to be followed",
      );
    });
  });
}
