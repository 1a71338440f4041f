// The host's posts as a post source (src/contract/post-source.ts): what the syndication core may do
// with them, and nothing more. Plug-ins get this, never the post service itself (which creates and
// deletes posts for the Micropub endpoint). Its SQL face is the `post_source` view (migration 002).
import type { PostSource } from "../../contract/post-source.ts";
import type { PostService } from "./post-service-interface.ts";

export function hostPostSource(posts: PostService): PostSource {
  return {
    nextAwaitingSyndication: (after, limit, onlyTargets) =>
      posts.nextAwaitingSyndication(after, limit, onlyTargets),
    countAwaitingSyndication: (onlyTargets) => posts.countAwaitingSyndication(onlyTargets),
    listAwaitingSyndication: (options) => posts.listAwaitingSyndication(options),
    list: (options) => posts.list(options),
    findById: (id) => posts.findById(id),
    findByUrl: (url) => posts.findByUrl(url),
    update: (url, update) => posts.update(url, update),
    ...(posts.onChange ? { onChange: posts.onChange.bind(posts) } : {}),
    ...(posts.writeTogether ? { writeTogether: posts.writeTogether.bind(posts) } : {}),
  };
}
