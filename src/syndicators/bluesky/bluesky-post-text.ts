// The text of a Bluesky post: its text, its hashtags and, when needed, the permalink. Bluesky
// counts 300 graphemes (and at most 3000 UTF-8 bytes) and links count in full. Its facets are found
// in the finished text (bluesky-facets.ts).

import { countGraphemes, utf8Length } from "../../contract/graphemes.ts";
import type { PostText } from "../../contract/jf2.ts";
import { type AppendUrl, linkRule } from "../shared/copy-template.ts";
import { type FittedCopy, fitCopy } from "../shared/fit-copy.ts";
import type { ThreadSettings } from "../shared/thread-options.ts";

export const blueskyGraphemeLimit = 300;
export const blueskyByteLimit = 3000;

export interface PostTextInput {
  text: PostText | undefined;
  permalink: string | undefined;
  /** Link every post back to the original, not only cut ones. */
  includePermalink: boolean;
  /** The `appendUrl` option; unset: as `includePermalink`, the text's source and the card say. */
  appendUrl?: AppendUrl | undefined;
  /** With images (or without a link card) a title or summary needs the permalink in the text. */
  hasImages: boolean;
  /** "#One #Two" from the post's categories, or "" for none. */
  hashtags?: string;
  /** false: the text is never cut (the site's `truncate: false`). */
  mayCut?: boolean;
  /** Set: a text over the limit becomes a thread. */
  thread?: ThreadSettings | undefined;
}

export function fitsBluesky(text: string): boolean {
  return countGraphemes(text) <= blueskyGraphemeLimit && utf8Length(text) <= blueskyByteLimit;
}

export function fitBlueskyPostText(input: PostTextInput): FittedCopy {
  const standsForMore = input.text !== undefined && input.text.source !== "content";
  // Without images the link card carries the link, so a title or summary needs it only when cut.
  const cardCarriesLink = standsForMore && !input.hasImages;
  const rule =
    input.appendUrl ?? linkRule(undefined, input.includePermalink, cardCarriesLink ? undefined : input.text);
  return fitCopy({
    body: input.text?.text ?? "",
    hashtags: input.hashtags ?? "",
    permalink: input.permalink,
    link: rule,
    fits: fitsBluesky,
    mayCut: input.mayCut ?? true,
    thread: input.thread,
  });
}

export function blueskyPostText(input: PostTextInput): string {
  return fitBlueskyPostText(input).text;
}
