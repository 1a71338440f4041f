// What a post becomes on Mastodon: the status text fitted to the instance's limits, the photos with
// their alt text, the language, or the status a like, boost or reply is about. Made without any
// network call, so the preview shows exactly what syndicate() then sends (it sends this).

import { categories, firstUrl, type Photo, permalink, photos, postLanguage } from "../../contract/jf2.ts";
import type { CopyPreview, PostProperties, PreviewOptions, Publication } from "../../contract/syndicator.ts";
import { hashtags } from "../shared/hashtags.ts";
import { siteFit } from "../shared/site-text.ts";
import { threadSettings } from "../shared/thread-options.ts";
import { cutAltText } from "./mastodon-alt-text.ts";
import { defaultLimits, type InstanceLimits } from "./mastodon-instance.ts";
import { mastodonLength } from "./mastodon-length.ts";
import type { MastodonOptions } from "./mastodon-options.ts";
import { traitsOf } from "./mastodon-software.ts";
import { fitStatusText } from "./mastodon-status-text.ts";

export interface MastodonCopy {
  /** A like or a boost: the status it is about, and nothing else is sent. */
  favourite?: string;
  reblog?: string;
  inReplyTo?: string;
  /** The status, or a thread's first. */
  status: string;
  /** A thread (decision 0055): every status in order, each a reply to the one before; `status` is the first. */
  thread?: string[];
  photos: Photo[];
  language?: string;
  preview: CopyPreview;
}

export function composeMastodon(
  properties: PostProperties,
  publication: Publication,
  options: MastodonOptions,
  limits: InstanceLimits | undefined,
  words: PreviewOptions,
): MastodonCopy {
  const ownText = words.text;
  const likeOf = firstUrl(properties, "like-of", publication.me);
  const repostOf = firstUrl(properties, "repost-of", publication.me);
  if (likeOf || repostOf) {
    const kind = likeOf ? "like" : "repost";
    const url = (likeOf ?? repostOf) as string;
    return {
      ...(likeOf ? { favourite: likeOf } : { reblog: url }),
      status: "",
      photos: [],
      preview: {
        over: false,
        cut: false,
        permalink: "none",
        photos: [],
        action: { kind, url },
        ownText: false,
      },
    };
  }
  const inReplyTo = firstUrl(properties, "in-reply-to", publication.me);
  const known = limits ?? defaultLimits;
  const characterLimit = options.characterLimit ?? known.maxCharacters;
  const urlLength = known.charactersPerUrl;
  const link = permalink(properties);
  const site = ownText === undefined ? siteFit(properties, options, words.site) : undefined;
  const fitted =
    site !== undefined
      ? fitStatusText({
          text: site.text,
          hashtags: options.includeCategories && site.hashtags ? hashtags(categories(properties)) : "",
          permalink: link,
          includePermalink: options.includePermalink,
          appendUrl: site.appendUrl,
          characterLimit,
          urlLength,
          mayCut: site.mayCut,
          // No thread where a chunk could double or be refused: GoToSocial ignores Idempotency-Key (a
          // later chunk could not be found again after a lost answer), Pixelfed wants a photo on each.
          ...(traitsOf(options.software).ignoresIdempotencyKey || traitsOf(options.software).photoRequired
            ? {}
            : { thread: threadSettings(options, words.thread) }),
        })
      : { text: ownText ?? "", cut: false, linked: link !== undefined && Boolean(ownText?.includes(link)) };
  const attached = photos(properties, publication.me)
    .slice(0, known.maxMedia)
    .map((photo) => (photo.alt ? { ...photo, alt: cutAltText(photo.alt, known.altTextLimit) } : photo));
  const language = options.language ?? postLanguage(properties)?.split("-")[0]?.toLowerCase();
  const count = mastodonLength(fitted.text, urlLength);
  const photoMissing = traitsOf(options.software).photoRequired && attached.length === 0 && !inReplyTo;
  const thread = "thread" in fitted ? fitted.thread : undefined;
  return {
    ...(inReplyTo ? { inReplyTo } : {}),
    status: fitted.text,
    ...(thread ? { thread } : {}),
    photos: attached,
    ...(language ? { language } : {}),
    preview: {
      text: fitted.text,
      length: {
        count,
        limit: characterLimit,
        unit: "characters",
        // An explicit characterLimit needs no instance; otherwise the send reads the instance first.
        ...(limits === undefined && options.characterLimit === undefined ? { assumed: true } : {}),
      },
      over: count > characterLimit,
      ...(thread ? { thread: thread.map((text) => ({ text, count: mastodonLength(text, urlLength) })) } : {}),
      cut: fitted.cut,
      permalink: fitted.linked ? "text" : "none",
      photos: attached,
      ...(inReplyTo ? { action: { kind: "reply" as const, url: inReplyTo } } : {}),
      ownText: ownText !== undefined,
      ...(photoMissing ? { notSent: { reason: "photoRequired" as const } } : {}),
    },
  };
}
