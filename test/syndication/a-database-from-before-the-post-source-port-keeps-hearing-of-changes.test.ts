// Decision 0052, the post-source port: the core no longer keeps triggers of its own on the host's posts
// table; it hears of a post's change through the port's trigger functions (host migration 002, core
// migration 016). A database made before them, with the old triggers, is upgraded in place: after
// the upgrade an edit of a post is still noticed, and a link written back still marks its copy,
// once each, whoever wrote it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { postMigrations } from "../../src/server/posts/migrations.ts";
import { syndicationMigrations } from "../../src/syndication/migrations.ts";
import { engines } from "../helpers/databases.ts";

const beforePort = syndicationMigrations.filter((m) => m.id < "endpoint-syndicate/016");
const hostBefore002 = postMigrations.filter((m) => m.id === "host/001-posts");

async function triggersOnPosts(database: Database): Promise<string[]> {
  const { rows } = await database.query<{ name: string }>(
    `SELECT tgname AS name FROM pg_trigger
      WHERE tgrelid = 'posts'::regclass AND NOT tgisinternal ORDER BY tgname`,
  );
  return rows.map((row) => row.name);
}

for (const engine of engines) {
  describe(`a database from before the post-source port, upgraded (${engine.name})`, () => {
    let database: Database;
    before(async () => {
      database = await engine.openBlank();
      await migrate(database, [...hostBefore002, ...beforePort]);
      await database.query(
        `INSERT INTO posts (id, url, slug, properties, status, published)
         VALUES (1, 'https://blog.example/a/', 'a', '{"content": "A", "mp-syndicate-to": []}', 'published', now())`,
      );
      await database.query(
        `INSERT INTO syndication_targets (post_id, target_uid, state, url, idempotency_key)
         VALUES (1, 'https://social.example/@me', 'syndicated', 'https://social.example/1', 'k')`,
      );
      assert.deepEqual(await triggersOnPosts(database), [
        "syndication_links_written_back",
        "syndication_post_changed",
      ]);
      await migrate(database, [...postMigrations, ...syndicationMigrations]);
    });
    after(() => database.close());

    it("has only the post source's triggers on posts", async () => {
      assert.deepEqual(await triggersOnPosts(database), ["post_source_changed", "post_source_links_changed"]);
    });

    it("notes an edit of a post that has copies, once, and not a write-back of links", async () => {
      await database.query(
        `UPDATE posts SET properties = properties || '{"syndication": ["https://social.example/1"]}' WHERE id = 1`,
      );
      const afterWriteBack = await database.query("SELECT post_id FROM syndication_post_changes");
      assert.equal(afterWriteBack.rows.length, 0, "writing links back is not a change to follow");
      await database.query(`UPDATE posts SET properties = properties || '{"content": "B"}' WHERE id = 1`);
      const { rows } = await database.query<{ post_id: string }>(
        "SELECT post_id::text AS post_id FROM syndication_post_changes",
      );
      assert.deepEqual(rows, [{ post_id: "1" }]);
    });

    it("marks a copy written back when the post holds its link", async () => {
      const { rows } = await database.query<{ written_back: boolean }>(
        "SELECT written_back FROM syndication_targets WHERE post_id = 1",
      );
      assert.deepEqual(rows, [{ written_back: true }]);
    });

    it("reads the post through the post_source view", async () => {
      const { rows } = await database.query<{ url: string; status: string }>(
        "SELECT url, status FROM post_source WHERE id = 1",
      );
      assert.deepEqual(rows, [{ url: "https://blog.example/a/", status: "published" }]);
    });
  });
}
