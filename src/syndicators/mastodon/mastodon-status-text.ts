// The text of a status made from a post: its text, its hashtags and, when the text stands for more
// (a title, a summary, or content that had to be cut), the permalink, all within Mastodon's limit.
import { cutToFit } from "../shared/fit-text.ts";
import type { PostText } from "../shared/jf2.ts";
import { mastodonLength } from "./mastodon-length.ts";

export interface StatusTextInput {
  text: PostText | undefined;
  /** "#One #Two", or "" for none. */
  hashtags: string;
  permalink: string | undefined;
  /** Link every status to the post, not only cut ones. */
  includePermalink: boolean;
  characterLimit: number;
  /** What every link counts (the instance's characters_reserved_per_url). */
  urlLength?: number;
}

const join = (...parts: string[]) => parts.filter(Boolean).join("\n\n");

export function statusText(input: StatusTextInput): string {
  const body = input.text?.text ?? "";
  const link = input.permalink ?? "";
  const fits = (text: string) => mastodonLength(text, input.urlLength) <= input.characterLimit;
  // A title or summary stands for a post the status cannot hold, so it always links to it.
  const alwaysLink = input.includePermalink || (input.text !== undefined && input.text.source !== "content");
  const whole = join(body, input.hashtags, alwaysLink ? link : "");
  if (fits(whole)) return whole;
  // Whole text without hashtags beats cut text with them…
  const withoutHashtags = join(body, alwaysLink ? link : "");
  if (input.hashtags && fits(withoutHashtags)) return withoutHashtags;
  // …but once the text must be cut anyway (the permalink leads to the rest), hashtags stay if they can.
  for (const hashtags of [input.hashtags, ""]) {
    const cut = cutToFit(body, (candidate) => fits(join(candidate, hashtags, link)));
    if (cut) return join(cut, hashtags, link);
  }
  if (link && fits(link)) return link;
  return cutToFit(body, fits) ?? "";
}
