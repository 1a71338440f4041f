// What a post becomes on Bluesky: its text fitted to 300 graphemes, the photos with their alt text,
// or a link card for the post. Made without any network call (facets, blobs and the card's picture
// are added when sending), so the preview shows exactly what syndicate() then sends.

import { countGraphemes } from "../../contract/graphemes.ts";
import {
  categories,
  contentText,
  firstString,
  firstUrl,
  type Photo,
  permalink,
  photos,
} from "../../contract/jf2.ts";
import type { CopyPreview, PostProperties, PreviewOptions, Publication } from "../../contract/syndicator.ts";
import { cutToFit } from "../shared/fit-text.ts";
import { hashtags } from "../shared/hashtags.ts";
import { siteFit } from "../shared/site-text.ts";
import { threadSettings } from "../shared/thread-options.ts";
import { previewFacets } from "./bluesky-facets.ts";
import type { BlueskyOptions } from "./bluesky-options.ts";
import { blueskyGraphemeLimit, fitBlueskyPostText, fitsBluesky } from "./bluesky-post-text.ts";

/** app.bsky.embed.images takes at most 4 images. */
export const maxImages = 4;
const cardDescriptionGraphemes = 300;

export interface LinkCard {
  uri: string;
  title: string;
  description: string;
}

export interface BlueskyCopy {
  /** The text, or a thread's first post's. */
  text: string;
  /** A thread (decision 0055): every post's text in order; the photos or the card go with the first. */
  thread?: string[];
  photos: Photo[];
  /** Absent with photos, without a permalink, or with `linkCard: false`. */
  card?: LinkCard;
  preview: CopyPreview;
}

export function composeBluesky(
  properties: PostProperties,
  publication: Publication,
  options: BlueskyOptions,
  words: PreviewOptions,
): BlueskyCopy {
  const ownText = words.text;
  const likeOf = firstUrl(properties, "like-of", publication.me);
  const repostOf = firstUrl(properties, "repost-of", publication.me);
  const subject = likeOf ?? repostOf;
  if (subject) {
    const action = { kind: likeOf ? ("like" as const) : ("repost" as const), url: subject };
    const preview = {
      over: false,
      cut: false,
      permalink: "none" as const,
      photos: [],
      action,
      ownText: false,
    };
    return { text: "", photos: [], preview };
  }
  const inReplyTo = firstUrl(properties, "in-reply-to", publication.me);
  const attached = photos(properties, publication.me).slice(0, maxImages);
  const link = permalink(properties);
  const hasCard = attached.length === 0 && link !== undefined && options.linkCard;
  const site = ownText === undefined ? siteFit(properties, options, words.site) : undefined;
  const fitted =
    site !== undefined
      ? fitBlueskyPostText({
          text: site.text,
          permalink: link,
          includePermalink: options.includePermalink,
          appendUrl: site.appendUrl,
          // Without a card, a title or summary needs the link in the text as with photos.
          hasImages: !hasCard,
          hashtags: options.includeCategories && site.hashtags ? hashtags(categories(properties)) : "",
          mayCut: site.mayCut,
          thread: threadSettings(options, words.thread),
        })
      : { text: ownText ?? "", cut: false, linked: link !== undefined && Boolean(ownText?.includes(link)) };
  const card = hasCard && link ? linkCard(properties, publication, link) : undefined;
  const featured = firstUrl(properties, "featured", publication.me);
  const count = countGraphemes(fitted.text);
  const facets = previewFacets(fitted.text);
  const thread = "thread" in fitted ? fitted.thread : undefined;
  return {
    text: fitted.text,
    ...(thread ? { thread } : {}),
    photos: attached,
    ...(card ? { card } : {}),
    preview: {
      text: fitted.text,
      length: { count, limit: blueskyGraphemeLimit, unit: "graphemes" },
      over: !fitsBluesky(fitted.text),
      ...(thread ? { thread: thread.map((text) => ({ text, count: countGraphemes(text) })) } : {}),
      cut: fitted.cut,
      permalink: fitted.linked ? "text" : card ? "card" : "none",
      photos: attached.map((photo) => ({ url: photo.url, alt: photo.alt ?? "" })),
      ...(facets.length > 0 ? { facets } : {}),
      ...(card
        ? { linkCard: { ...card, ...(featured ? { image: featured } : { imageFromPage: true }) } }
        : {}),
      ...(inReplyTo ? { action: { kind: "reply" as const, url: inReplyTo } } : {}),
      ownText: ownText !== undefined,
    },
  };
}

/** The link card shown under a post without images: the post's title and the start of its text. */
function linkCard(properties: PostProperties, publication: Publication, uri: string): LinkCard {
  const title = firstString(properties, "name") ?? publication.name;
  const text = firstString(properties, "summary") ?? contentText(properties) ?? "";
  const description =
    countGraphemes(text) <= cardDescriptionGraphemes
      ? text
      : (cutToFit(text, (cut) => countGraphemes(cut) <= cardDescriptionGraphemes) ?? "");
  return { uri, title, description };
}
