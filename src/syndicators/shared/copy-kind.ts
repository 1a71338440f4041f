// What a post's copy is on a service: a like of another post, a repost (boost) of it, or a post of
// its own. A like-of wins over a repost-of, as every syndicator sends it. Deleting a copy needs only
// this, not the whole composed copy.

import { firstUrl } from "../../contract/jf2.ts";
import type { PostProperties, Publication } from "../../contract/syndicator.ts";

export type CopyKind = "like" | "repost" | "post";

export function copyKind(properties: PostProperties, publication: Publication): CopyKind {
  if (firstUrl(properties, "like-of", publication.me)) return "like";
  if (firstUrl(properties, "repost-of", publication.me)) return "repost";
  return "post";
}
