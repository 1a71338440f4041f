// Posts from elsewhere: how a post source that is not the site itself (a feed, a remote Micropub
// server) keeps its copy of the posts it learns of, so that the syndication core sends, follows and
// writes back their copies as it does the site's own.
//
// The host keeps them beside its own posts (one table, a column naming their origin): the core reads
// them through the post-source port (src/contract/post-source.ts) like any post, and a change
// recorded here reaches it as a Micropub edit does (its follow-ups edit the copies). The site's own
// faces (Micropub, its pages and feeds, its content store) never show them.
//
// @example
// const known = server.knownPosts; // null without a database
// known?.addOrigin({ origin: "feed:blog", writeBack: async (post, update) => micropubUpdate(post.url, update) });
// const { outcome, post } = await known.record({
//   origin: "feed:blog", url: entry.url, properties: entry.properties, published: entry.published,
// });
// if (outcome === "new") …decide whether it goes to the targets (mp-syndicate-to)…
import type { Post, PostStatus, PostUpdate } from "./posts.ts";

export interface KnownPostInput {
  /** Who knows the post: `feed:<key>`, `micropub:<name>`; never empty. */
  origin: string;
  /** Its URL on its own site (absolute http(s)); unique among all posts, the site's own included. */
  url: string;
  /**
   * Its JF2 properties (src/contract/posts.ts). `url`, `published` and `post-status` are set from
   * the other fields. `mp-syndicate-to` counts only when the post is new (it names the targets to
   * send it to); afterwards the post's `syndication` and `mp-syndicate-to` are the core's, and
   * what is given for them is ignored.
   */
  properties: Record<string, unknown>;
  published: Date;
  /** "published" unless said otherwise. */
  status?: PostStatus;
  /**
   * The id of the post this was recorded as before, when its URL changed (the source's own notion
   * of identity says it is the same post): the post keeps its id, its copies and its ledger.
   */
  id?: string;
}

/**
 * new: recorded for the first time. changed: its properties (other than `syndication` and
 * `mp-syndicate-to`), status, date or URL differed, and now hold what was given; the core follows
 * the change (its copies are edited). unchanged: nothing was written.
 */
export type KnownPostOutcome = "new" | "changed" | "unchanged";

export interface RecordedPost {
  outcome: KnownPostOutcome;
  post: Post;
}

/** The URL is the site's own post's, or another origin's: a source never takes over a post. */
export class KnownPostConflictError extends Error {
  constructor(
    readonly url: string,
    /** The origin that has it, or null for the site's own post. */
    readonly heldBy: string | null,
  ) {
    super(
      heldBy === null
        ? `${url} is a post of this site's own; it is not recorded again from elsewhere`
        : `${url} is known already from ${heldBy}`,
    );
    this.name = "KnownPostConflictError";
  }
}

/**
 * What a source of posts from elsewhere may hand the host: told of each change the core writes
 * back to one of its posts (the copies' links), after the host's copy of the post holds it.
 */
export interface PostOrigin {
  /** The origin it answers for, exactly as its posts are recorded (`feed:blog`). */
  readonly origin: string;
  /**
   * Called after the post's row took `update` (e.g. to send a Micropub update to the real site).
   * It should keep and retry a failure itself: a throw is logged, and the core's write-back
   * counts as done (the host's copy of the post holds the links).
   */
  writeBack?(post: Post, update: PostUpdate): Promise<void>;
}

export interface KnownPosts {
  /** Records a post from elsewhere, or what changed in it; see KnownPostOutcome. */
  record(input: KnownPostInput): Promise<RecordedPost>;
  /** A post from elsewhere by its URL (never one of the site's own). */
  findByUrl(url: string): Promise<Post | null>;
  /** The posts an origin has recorded, newest first (deleted ones included). */
  listByOrigin(origin: string): Promise<Array<{ id: string; url: string; published: Date }>>;
  /** Registers the adapter of an origin (one per origin; a second for the same origin throws). */
  addOrigin(adapter: PostOrigin): void;
}
