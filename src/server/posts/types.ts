// The host's post service: the one way posts are created, read and changed, by the Micropub endpoint
// and by the syndication endpoint alike.
//
// Properties are stored as JF2 (https://jf2.spec.indieweb.org/): `type` is "entry" (etc.), single
// values are plain values, and these properties are ALWAYS arrays, even with one value:
//   category, syndication, mp-syndicate-to, photo, video, audio, in-reply-to, like-of, repost-of, bookmark-of
// `mp-syndicate-to` and `syndication` are arrays of strings. `photo` is an array of { url, alt? }.
// `content` is { html, text } or a string. `published` is an ISO 8601 string.
// Server-set properties: `url`, `published`, `post-status` ("published" | "draft").

export type PostStatus = "published" | "draft";

export interface Post {
  /** Database id, a decimal string (bigint). */
  id: string;
  url: string;
  /** JF2 properties, including type, url and published. */
  properties: Record<string, unknown>;
  status: PostStatus;
  published: Date;
  created: Date;
  updated: Date;
  deleted: boolean;
}

/** Micropub-style update operations on JF2 properties. */
export interface PostUpdate {
  /** Replace whole properties. */
  replace?: Record<string, unknown>;
  /** Add values to properties (values already present are not added again). */
  add?: Record<string, unknown[]>;
  /** Delete whole properties (array of names) or some values of them (object). */
  delete?: string[] | Record<string, unknown[]>;
}

export interface CreatePostInput {
  properties: Record<string, unknown>;
  /** Preferred slug (mp-slug); made unique by the service. */
  slug?: string;
  status?: PostStatus;
}

/** Keyset position in the order of syndication: oldest published first, then creation order. */
export interface AwaitingCursor {
  published: Date;
  id: string;
}

/** A change made through the service, told to its listeners after it is stored. */
export type PostChange =
  | { kind: "create" | "undelete" | "delete"; post: Post }
  | { kind: "update"; post: Post; update: PostUpdate };

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
  /**
   * Runs `work`; the changes it makes reach the site's content store together when it ends, as one
   * change (one commit), not one per post. A syndication run writes its copies' links back inside
   * it, so that a batch causes one deploy (issue 28). Absent: each change reaches the store by itself.
   */
  writeTogether?<T>(work: () => Promise<T>): Promise<T>;
}

export class PostNotFoundError extends Error {
  constructor(readonly url: string) {
    super(`No post exists at ${url}`);
    this.name = "PostNotFoundError";
  }
}
