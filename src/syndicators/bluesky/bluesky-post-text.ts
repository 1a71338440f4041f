// The text of a Bluesky post and its link facets. Bluesky counts 300 graphemes (and at most 3000
// UTF-8 bytes) and links count in full; a facet marks a link by UTF-8 byte offsets, not by
// JavaScript string indices, so an emoji before a link moves it by 4 bytes, not 2 units.
import { cutToFit } from "../shared/fit-text.ts";
import { countGraphemes, utf8Length } from "../shared/graphemes.ts";
import type { PostText } from "../shared/jf2.ts";
import { findUrls } from "../shared/urls.ts";

export const blueskyGraphemeLimit = 300;
export const blueskyByteLimit = 3000;

export interface LinkFacet {
  index: { byteStart: number; byteEnd: number };
  features: [{ $type: "app.bsky.richtext.facet#link"; uri: string }];
}

export interface PostTextInput {
  text: PostText | undefined;
  permalink: string | undefined;
  /** Link every post back to the original, not only cut ones. */
  includePermalink: boolean;
  /** With images there is no link card, so a title or summary needs the permalink in the text. */
  hasImages: boolean;
}

const join = (...parts: string[]) => parts.filter(Boolean).join("\n\n");

export function fitsBluesky(text: string): boolean {
  return countGraphemes(text) <= blueskyGraphemeLimit && utf8Length(text) <= blueskyByteLimit;
}

export function blueskyPostText(input: PostTextInput): string {
  const body = input.text?.text ?? "";
  const link = input.permalink ?? "";
  const standsForMore = input.text !== undefined && input.text.source !== "content";
  const alwaysLink = input.includePermalink || (standsForMore && input.hasImages);
  const whole = join(body, alwaysLink ? link : "");
  if (fitsBluesky(whole)) return whole;
  const cut = cutToFit(body, (candidate) => fitsBluesky(join(candidate, link)));
  if (cut) return join(cut, link);
  if (link && fitsBluesky(link)) return link;
  return cutToFit(body, fitsBluesky) ?? "";
}

export function linkFacets(text: string): LinkFacet[] {
  return findUrls(text).map(({ url, start }) => {
    const byteStart = utf8Length(text.slice(0, start));
    return {
      index: { byteStart, byteEnd: byteStart + utf8Length(url) },
      features: [{ $type: "app.bsky.richtext.facet#link", uri: url }],
    };
  });
}
