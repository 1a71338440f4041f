// The post read model host and plug-ins share: a post as a post source (src/contract/post-source.ts)
// hands it out, the changes syndication writes back, and what a source tells of a change.
//
// Properties are stored as JF2 (https://jf2.spec.indieweb.org/): `type` is "entry" (etc.), single
// values are plain values, and these properties are ALWAYS arrays, even with one value:
//   category, syndication, mp-syndicate-to, photo, video, audio, in-reply-to, like-of, repost-of, bookmark-of
// `mp-syndicate-to` and `syndication` are arrays of strings. `photo` is an array of { url, alt? }.
// `content` is { html, text } or a string. `published` is an ISO 8601 string.
// Server-set properties: `url`, `published`, `post-status` ("published" | "draft").

export type PostStatus = "published" | "draft";

export interface Post {
  /** The source's id, a decimal string (bigint). */
  id: string;
  url: string;
  /** JF2 properties, including type, url and published. */
  properties: Record<string, unknown>;
  status: PostStatus;
  published: Date;
  created: Date;
  updated: Date;
  deleted: boolean;
  /**
   * The post source that knows this post when it is not the site's own (a feed's entry:
   * `feed:<key>`; see src/contract/known-posts.ts). Absent for the site's own posts.
   */
  origin?: string;
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

/** Keyset position in the order of syndication: oldest published first, then creation order. */
export interface AwaitingCursor {
  published: Date;
  id: string;
}

/** A change made through the source, told to its listeners after it is stored. */
export type PostChange =
  | { kind: "create" | "undelete" | "delete"; post: Post }
  | { kind: "update"; post: Post; update: PostUpdate };

export class PostNotFoundError extends Error {
  constructor(readonly url: string) {
    super(`No post exists at ${url}`);
    this.name = "PostNotFoundError";
  }
}
