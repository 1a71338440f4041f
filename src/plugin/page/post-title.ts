// What a post is called on the page: its name, else the start of its summary or content. A note has
// no name, so the reader recognises it by its first words.

import { graphemes } from "../../contract/graphemes.ts";
import { postText } from "../../contract/jf2.ts";
import type { Post } from "../../contract/posts.ts";

const EXCERPT_GRAPHEMES = 120;

export interface PostTitle {
  /** null when the post has no text at all (a photo alone): the page says "Untitled post". */
  text: string | null;
  /** true when the text is the start of the summary or content rather than a name. */
  excerpt: boolean;
}

export function postTitle(post: Post): PostTitle {
  const found = postText(post.properties);
  if (!found) return { text: null, excerpt: false };
  const oneLine = found.text.replace(/\s+/g, " ").trim();
  if (found.source === "name") return { text: oneLine, excerpt: false };
  const parts = graphemes(oneLine);
  if (parts.length <= EXCERPT_GRAPHEMES) return { text: oneLine, excerpt: true };
  return { text: `${parts.slice(0, EXCERPT_GRAPHEMES).join("").trimEnd()}…`, excerpt: true };
}
