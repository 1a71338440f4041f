// The text of a status made from a post: its text, its hashtags and, when the text stands for more
// (a title, a summary, or content that had to be cut), the permalink, all within Mastodon's limit.

import type { PostText } from "../../contract/jf2.ts";
import { type AppendUrl, linkRule } from "../shared/copy-template.ts";
import { type FittedCopy, fitCopy } from "../shared/fit-copy.ts";
import type { ThreadSettings } from "../shared/thread-options.ts";
import { mastodonLength } from "./mastodon-length.ts";

export interface StatusTextInput {
  text: PostText | undefined;
  /** "#One #Two", or "" for none. */
  hashtags: string;
  permalink: string | undefined;
  /** Link every status to the post, not only cut ones. */
  includePermalink: boolean;
  /** The `appendUrl` option; unset: as `includePermalink` and the text's source say. */
  appendUrl?: AppendUrl | undefined;
  characterLimit: number;
  /** What every link counts (the instance's characters_reserved_per_url). */
  urlLength?: number;
  /** false: the text is never cut (the site's `truncate: false`). */
  mayCut?: boolean;
  /** Set: a text over the limit becomes a thread. */
  thread?: ThreadSettings | undefined;
}

export function fitStatusText(input: StatusTextInput): FittedCopy {
  return fitCopy({
    body: input.text?.text ?? "",
    hashtags: input.hashtags,
    permalink: input.permalink,
    link: linkRule(input.appendUrl, input.includePermalink, input.text),
    fits: (text) => mastodonLength(text, input.urlLength) <= input.characterLimit,
    mayCut: input.mayCut ?? true,
    thread: input.thread,
  });
}

export function statusText(input: StatusTextInput): string {
  return fitStatusText(input).text;
}
