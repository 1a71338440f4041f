// The host's post service: the one way the host's posts are created, read and changed (the Micropub
// endpoint). Plug-ins never see it: the syndication core reads and writes back through the narrower
// post-source port (src/contract/post-source.ts), which src/server/posts/post-source.ts carves out of it.
import type { AwaitingCursor, Post, PostChange, PostStatus, PostUpdate } from "../../contract/posts.ts";

export interface CreatePostInput {
  properties: Record<string, unknown>;
  /** Preferred slug (mp-slug); made unique by the service. */
  slug?: string;
  status?: PostStatus;
}

export interface PostService {
  /**
   * Calls `listener` after each create, update, delete and undelete in this process (the
   * syndication scheduler wakes for a new post, and to follow an edit or a delete). Returns the
   * function that stops it.
   */
  onChange?(listener: (change: PostChange) => void): () => void;
  create(input: CreatePostInput): Promise<Post>;
  /** Finds a post by its exact URL (deleted posts included, flagged). */
  findByUrl(url: string): Promise<Post | null>;
  findById(id: string): Promise<Post | null>;
  /** Applies the operations in one statement; throws PostNotFoundError for an unknown URL. */
  update(url: string, update: PostUpdate): Promise<Post>;
  delete(url: string): Promise<Post>;
  undelete(url: string): Promise<Post>;
  /**
   * Posts not deleted (drafts included), newest first. `before` is the opaque cursor returned as
   * `next` (older posts); `after` the one returned as `previous` (newer posts, still newest first).
   */
  list(options: { limit: number; before?: string; after?: string }): Promise<{
    posts: Post[];
    next?: string;
    previous?: string;
  }>;
  /**
   * Published, not deleted posts whose `mp-syndicate-to` is not empty, oldest first (published,
   * then id), strictly after `after` when given. Served by a partial index, so as fast among a
   * million posts as among ten thousand.
   */
  nextAwaitingSyndication(
    after?: AwaitingCursor,
    limit?: number,
    onlyTargets?: readonly string[],
  ): Promise<Post[]>;
  /**
   * How many posts nextAwaitingSyndication would walk through from the start. `onlyTargets`, here
   * and above: only posts naming at least one of these uids (the configured targets), so that a
   * post naming only a removed target does not wait.
   */
  countAwaitingSyndication(onlyTargets?: readonly string[]): Promise<number>;
  /** One page of awaiting posts for the admin page, oldest first. */
  listAwaitingSyndication(options: {
    offset: number;
    limit: number;
    onlyTargets?: readonly string[];
  }): Promise<Post[]>;
  /**
   * The categories used by posts not deleted, in alphabetical order; with `filter`, those
   * containing it (case-insensitively). Only plain-text categories: a person tagged with an
   * h-card is not a category to offer.
   */
  categories(options: { filter?: string; limit: number }): Promise<string[]>;
}
