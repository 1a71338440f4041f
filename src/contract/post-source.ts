// The post-source port: the only way the syndication core reaches posts. possekit's host implements
// it over its own posts and those a source keeps from elsewhere (src/contract/known-posts.ts: a
// feed, a remote Micropub server), in src/server/posts/post-source.ts. The core reads posts, pages
// through those awaiting syndication, and writes the links of their copies back, all through these
// methods.
//
// Besides the methods, a source in the same database names its posts to the core's SQL through one
// relation, POST_SOURCE_RELATION, which the core only reads (joins, counts, and a share lock while it
// claims a send, so that a post deleted meanwhile is never sent). Its columns:
//
//   id bigint            the post's id (Post.id)         url text                 its URL
//   status text          'published' or 'draft'          published timestamptz    when it was published
//   deleted_at timestamptz  null unless deleted          properties jsonb         its JF2 properties
//   origin text          null for the site's own post; else the source that knows it (known-posts.ts)
//
// The host's is a view over its `posts` table (host migrations 002 and 011). Its `mp-syndicate-to` is
// always an array, as the awaiting predicate's partial index needs.
import type { AwaitingCursor, Post, PostChange, PostUpdate } from "./posts.ts";

/** The relation (a table or a view) through which the core's SQL reads the source's posts. */
export const POST_SOURCE_RELATION = "post_source";

export interface PostSource {
  /**
   * Awaiting posts with their targets: published, not deleted, public (visibility.ts: an unlisted or
   * private post is never sent), naming at least one of `onlyTargets`
   * (all targets when absent) in `mp-syndicate-to`; oldest first (published, then id), strictly
   * after `after` when given. What a run walks through, a page at a time.
   */
  nextAwaitingSyndication(
    after?: AwaitingCursor,
    limit?: number,
    onlyTargets?: readonly string[],
  ): Promise<Post[]>;
  /** How many posts nextAwaitingSyndication would walk through from the start. */
  countAwaitingSyndication(onlyTargets?: readonly string[]): Promise<number>;
  /** One page of the awaiting posts for the page's list, oldest first. */
  listAwaitingSyndication(options: {
    offset: number;
    limit: number;
    onlyTargets?: readonly string[];
  }): Promise<Post[]>;
  /**
   * Posts not deleted (drafts included), newest first. `before` is the opaque cursor returned as
   * `next` (older posts); `after` the one returned as `previous` (newer posts, still newest first).
   */
  list(options: { limit: number; before?: string; after?: string }): Promise<{
    posts: Post[];
    next?: string;
    previous?: string;
  }>;
  /** Reads one post by its id (deleted posts included, flagged). */
  findById(id: string): Promise<Post | null>;
  /** Reads one post by its exact URL (deleted posts included, flagged). */
  findByUrl(url: string): Promise<Post | null>;
  /**
   * Writes back what syndication changed, as a Micropub update would: the copies' links
   * (`syndication`), the targets still asked for (`mp-syndicate-to`), the user's own words for a
   * copy. Throws PostNotFoundError for an unknown URL.
   */
  update(url: string, update: PostUpdate): Promise<Post>;
  /**
   * As `update`, in one statement with the core's `alongside` (the sends' outcomes): the source
   * puts its common table expressions before its UPDATE of the post and reads its `returning` in
   * that UPDATE's RETURNING, so that the post's row is locked before any row of the core's and a
   * post's outcomes and links are one statement and one commit (decisions 0061 and 0068). Returns
   * the post and what `returning` read. Throws PostNotFoundError for an unknown URL; the core's
   * statements may have run all the same. Absent (a source outside the core's database): the core
   * records the outcomes first, then calls `update`. `post`: the post at `url` as the core read it
   * from this source; what never changes of it (its origin) need not be read again (decision 0081).
   */
  updateAlongside?(
    url: string,
    update: PostUpdate,
    alongside: AlongsideStatement,
    post?: Post,
  ): Promise<UpdatedAlongside>;
  /**
   * True when a write-back of `post` made now (updateAlongside, inside writeTogether when the core
   * runs one) returns once its statement is committed: nothing after that commit waits on the
   * network (a content store, the post's origin). A batch then claims its next post inside that
   * statement (decision 0075); otherwise the post's write-back commits alone and the next post is
   * claimed after it returns, so that no claimed row waits `sending` on a request that is not its
   * own. Absent or false: the write-back commits alone.
   */
  returnsOnCommit?(post: Post): boolean;
  /**
   * Runs `work`; the changes it makes reach the site's content store together when it ends, as one
   * change (one commit), not one per post. A syndication run writes its copies' links back inside
   * it, so that a batch causes one deploy (decision 0033). Absent: each change reaches the store by itself.
   */
  writeTogether?<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Calls `listener` after each change the source makes or learns of in this process (the
   * scheduler wakes for a new post, and to follow an edit or a delete). Returns the function that
   * stops it. Changes made by other processes reach the core through the database.
   */
  onChange?(listener: (change: PostChange) => void): () => void;
}

/**
 * Statements of the core that run inside a source's own statement (PostSource.updateAlongside,
 * decision 0068).
 */
export interface AlongsideStatement {
  /** Common table expressions, `name AS (…), …`, numbering their parameters from `$first`. */
  with(first: number): string;
  params: readonly unknown[];
  /** A json expression over those expressions: what the caller gets back as `alongside`. */
  returning: string;
}

/** A post written back with the core's statements alongside. */
export interface UpdatedAlongside {
  post: Post;
  /** What the statement's `returning` read (null when nothing). */
  alongside: unknown;
}
