// The user's thread choice for one post on one target (decision 0058): saved from the preview on the
// page, it makes a long text a thread (true) or cuts and links it (false) whatever the target's own
// `thread` option says; without one, the option decides. `wordsFor` (own-texts.ts) carries it to the
// preview, the send, the edit and the copy's digest alike, so what the preview shows is sent.
import type { Database } from "../../contract/database.ts";
import type { Post } from "../../contract/posts.ts";

export class ThreadChoices {
  constructor(private readonly database: Database) {}

  /** The choices of a post, by target uid. */
  async forPost(post: Post): Promise<Map<string, boolean>> {
    return (await this.forPosts([post])).get(post.id) ?? new Map();
  }

  /** The choices of each post, by post id and target uid: one read for a page of posts. */
  async forPosts(posts: readonly Post[]): Promise<Map<string, Map<string, boolean>>> {
    const byPost = new Map<string, Map<string, boolean>>(posts.map((post) => [post.id, new Map()]));
    if (posts.length === 0) return byPost;
    const result = await this.database.query<{ post_id: string; target_uid: string; thread: boolean }>(
      `SELECT post_id::text AS post_id, target_uid, thread FROM syndication_thread_choices
        WHERE post_id = ANY($1::bigint[])`,
      [posts.map((post) => post.id)],
    );
    for (const row of result.rows) byPost.get(row.post_id)?.set(row.target_uid, row.thread);
    return byPost;
  }

  async save(post: Post, targetUid: string, thread: boolean): Promise<void> {
    await this.database.query(
      `INSERT INTO syndication_thread_choices (post_id, target_uid, thread) VALUES ($1::bigint, $2, $3)
        ON CONFLICT (post_id, target_uid) DO UPDATE SET thread = EXCLUDED.thread, updated_at = now()
        WHERE syndication_thread_choices.thread IS DISTINCT FROM EXCLUDED.thread`,
      [post.id, targetUid, thread],
    );
  }

  /** Back to the target's own option. */
  async reset(post: Post, targetUid: string): Promise<void> {
    await this.database.query(
      "DELETE FROM syndication_thread_choices WHERE post_id = $1::bigint AND target_uid = $2",
      [post.id, targetUid],
    );
  }
}
