// What a post becomes on Threads, without any network call (the preview is what is sent): the text
// fitted to 500 characters as Threads counts them, the first photo by its public URL (an IMAGE
// container: Threads fetches it itself, posts.md "Threads retrieves your image from the URL
// provided"), and, for a text-only post whose text does not hold the link, the post's URL as
// its link preview (link_attachment). `linkInText` is the second try after Threads refused the
// link attachment: the link then goes into the text.
import { permalink, photos } from "../../contract/jf2.ts";
import type { CopyPreview, PostProperties, PreviewOptions, Publication } from "../../contract/syndicator.ts";
import { linkRule } from "../shared/copy-template.ts";
import { fitCopy } from "../shared/fit-copy.ts";
import { siteFit } from "../shared/site-text.ts";
import type { ContainerFields } from "./threads-api.ts";
import { THREADS_TEXT_LIMIT, threadsLength } from "./threads-length.ts";
import type { ThreadsOptions } from "./threads-options.ts";

export interface ThreadsCopy {
  container: ContainerFields;
  preview: CopyPreview;
}

export function composeThreads(
  properties: PostProperties,
  publication: Publication,
  options: ThreadsOptions,
  words: PreviewOptions,
  linkInText = false,
): ThreadsCopy {
  const ownText = words.text;
  const link = permalink(properties);
  const photo = photos(properties, publication.me)[0];
  const fits = (text: string) => threadsLength(text) <= THREADS_TEXT_LIMIT;
  const site = ownText === undefined ? siteFit(properties, options, words.site) : undefined;
  const rule = site ? linkRule(site.appendUrl, options.includePermalink, site.text) : "never";
  const fitted =
    site !== undefined
      ? fitCopy({
          body: site.text?.text ?? "",
          hashtags: "",
          permalink: link,
          link: linkInText && rule !== "never" ? "always" : rule,
          fits,
          mayCut: site.mayCut,
        })
      : { text: ownText ?? "", cut: false, linked: link !== undefined && Boolean(ownText?.includes(link)) };
  const card =
    !photo &&
    !linkInText &&
    options.linkAttachment &&
    link !== undefined &&
    !fitted.linked &&
    rule !== "never";
  const count = threadsLength(fitted.text);
  return {
    container: {
      mediaType: photo ? "IMAGE" : "TEXT",
      text: fitted.text,
      ...(photo ? { imageUrl: photo.url, ...(photo.alt ? { altText: photo.alt } : {}) } : {}),
      ...(card ? { linkAttachment: link } : {}),
    },
    preview: {
      text: fitted.text,
      length: { count, limit: THREADS_TEXT_LIMIT, unit: "characters" },
      over: count > THREADS_TEXT_LIMIT,
      cut: fitted.cut,
      permalink: fitted.linked ? "text" : card ? "card" : "none",
      photos: photo ? [photo] : [],
      ownText: ownText !== undefined,
    },
  };
}
