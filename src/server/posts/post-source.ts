// Every post the syndication core may send, as a post source (src/contract/post-source.ts): the
// site's own and those a source keeps from elsewhere (src/contract/known-posts.ts). Plug-ins get
// this, never the post service itself (which creates and deletes posts for the Micropub endpoint).
// Its SQL face is the `post_source` view (host migrations 002 and 011).
//
// Reads see every post. A write-back goes where the post lives: the site's own post through the
// host's service (and on to its content store, as any change of it); a post from elsewhere only
// to its row (the site's store never holds it), then to its origin's adapter, if any.
import type { AlongsideStatement, PostSource, UpdatedAlongside } from "../../contract/post-source.ts";
import type { Post, PostChange, PostUpdate } from "../../contract/posts.ts";
import { PostNotFoundError } from "../../contract/posts.ts";
import type { Logger } from "../logger.ts";
import type { HostKnownPosts } from "./known-posts.ts";
import type { PostService } from "./post-service-interface.ts";

export interface EveryPostOptions {
  /** The site's own posts, their changes published to its store. */
  own: PostService;
  /** Every post, own and from elsewhere, with no store behind it. */
  all: PostService;
  known: HostKnownPosts;
  logger: Logger;
}

export function hostPostSource({ own, all, known, logger }: EveryPostOptions): PostSource {
  async function updateFromElsewhere(post: Post, update: PostUpdate): Promise<Post>;
  async function updateFromElsewhere(
    post: Post,
    update: PostUpdate,
    alongside: AlongsideStatement,
  ): Promise<UpdatedAlongside>;
  async function updateFromElsewhere(
    post: Post,
    update: PostUpdate,
    alongside?: AlongsideStatement,
  ): Promise<Post | UpdatedAlongside> {
    const result = alongside
      ? await all.updateAlongside(post.url, update, alongside)
      : await all.update(post.url, update);
    const updated = "alongside" in result ? result.post : result;
    const adapter = post.origin ? known.origin(post.origin) : undefined;
    if (adapter?.writeBack) {
      try {
        await adapter.writeBack(updated, update);
      } catch (error) {
        // The row holds the links: the core's write-back is done; the origin retries its own.
        logger.error("The origin of a post from elsewhere refused its write-back", {
          post: updated.url,
          origin: post.origin,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    return result;
  }

  return {
    nextAwaitingSyndication: (after, limit, onlyTargets) =>
      all.nextAwaitingSyndication(after, limit, onlyTargets),
    countAwaitingSyndication: (onlyTargets) => all.countAwaitingSyndication(onlyTargets),
    listAwaitingSyndication: (options) => all.listAwaitingSyndication(options),
    list: (options) => all.list(options),
    findById: (id) => all.findById(id),
    findByUrl: (url) => all.findByUrl(url),
    async update(url, update) {
      const post = await all.findByUrl(url);
      if (!post) throw new PostNotFoundError(url);
      // A post's origin never changes, so the row read here decides where its update goes.
      return post.origin === undefined ? own.update(url, update) : updateFromElsewhere(post, update);
    },
    // The core hands the post it read from here: its origin, which never changes, says where the
    // write-back goes without a statement more a post (decision 0081).
    async updateAlongside(url, update, alongside, read) {
      const post = read ?? (await all.findByUrl(url));
      if (!post) throw new PostNotFoundError(url);
      return post.origin === undefined
        ? own.updateAlongside(url, update, alongside)
        : updateFromElsewhere(post, update, alongside);
    },
    // A post from elsewhere whose origin takes its write-back is told after the commit, over the
    // network: never one that a batch's next claim rides (decision 0075).
    returnsOnCommit(post) {
      if (post.origin === undefined) return own.returnsOnCommit?.(post) === true;
      if (known.origin(post.origin)?.writeBack) return false;
      return all.returnsOnCommit?.(post) === true;
    },
    onChange(listener: (change: PostChange) => void) {
      const stops = [own.onChange?.(listener), all.onChange?.(listener), known.onChange(listener)];
      return () => {
        for (const stop of stops) stop?.();
      };
    },
    ...(own.writeTogether ? { writeTogether: own.writeTogether.bind(own) } : {}),
  };
}
