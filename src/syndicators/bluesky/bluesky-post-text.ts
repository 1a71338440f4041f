// The text of a Bluesky post: its text, its hashtags and, when needed, the permalink. Bluesky
// counts 300 graphemes (and at most 3000 UTF-8 bytes) and links count in full. Its facets are found
// in the finished text (bluesky-facets.ts).
import { cutToFit } from "../shared/fit-text.ts";
import { countGraphemes, utf8Length } from "../shared/graphemes.ts";
import type { PostText } from "../shared/jf2.ts";

export const blueskyGraphemeLimit = 300;
export const blueskyByteLimit = 3000;

export interface PostTextInput {
  text: PostText | undefined;
  permalink: string | undefined;
  /** Link every post back to the original, not only cut ones. */
  includePermalink: boolean;
  /** With images there is no link card, so a title or summary needs the permalink in the text. */
  hasImages: boolean;
  /** "#One #Two" from the post's categories, or "" for none. */
  hashtags?: string;
}

const join = (...parts: string[]) => parts.filter(Boolean).join("\n\n");

export function fitsBluesky(text: string): boolean {
  return countGraphemes(text) <= blueskyGraphemeLimit && utf8Length(text) <= blueskyByteLimit;
}

export function blueskyPostText(input: PostTextInput): string {
  const body = input.text?.text ?? "";
  const link = input.permalink ?? "";
  const tags = input.hashtags ?? "";
  const standsForMore = input.text !== undefined && input.text.source !== "content";
  const alwaysLink = input.includePermalink || (standsForMore && input.hasImages);
  const whole = join(body, tags, alwaysLink ? link : "");
  if (fitsBluesky(whole)) return whole;
  // Whole text without hashtags beats cut text with them…
  const withoutTags = join(body, alwaysLink ? link : "");
  if (tags && fitsBluesky(withoutTags)) return withoutTags;
  // …but once the text must be cut anyway (the permalink leads to the rest), hashtags stay if they can.
  for (const hashtags of [tags, ""]) {
    const cut = cutToFit(body, (candidate) => fitsBluesky(join(candidate, hashtags, link)));
    if (cut) return join(cut, hashtags, link);
  }
  if (link && fitsBluesky(link)) return link;
  return cutToFit(body, fitsBluesky) ?? "";
}
