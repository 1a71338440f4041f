// The host's post service: the one way the host's posts are created, read and changed (the Micropub
// endpoint). Plug-ins never see it: the syndication core reads and writes back through the narrower
// post-source port (src/contract/post-source.ts), which src/server/posts/post-source.ts carves out of it.
import type { PostSource } from "../../contract/post-source.ts";
import type { Post, PostStatus } from "../../contract/posts.ts";

export interface CreatePostInput {
  properties: Record<string, unknown>;
  /** Preferred slug (mp-slug); made unique by the service. */
  slug?: string;
  status?: PostStatus;
}

/** The post-source port (what the syndication core may do), and what only the host does. */
export interface PostService extends PostSource {
  updateAlongside: NonNullable<PostSource["updateAlongside"]>;
  create(input: CreatePostInput): Promise<Post>;
  delete(url: string): Promise<Post>;
  undelete(url: string): Promise<Post>;
  /**
   * The categories used by posts not deleted, in alphabetical order; with `filter`, those
   * containing it (case-insensitively). Only plain-text categories: a person tagged with an
   * h-card is not a category to offer.
   */
  categories(options: { filter?: string; limit: number }): Promise<string[]>;
  /** Whether any post, deleted or not, names `url` among its properties (a photo still in use). */
  namesUrl(url: string): Promise<boolean>;
}
