// What a post becomes on LinkedIn: the commentary fitted to 3000 characters, and an article card
// for the post (its title, its summary or the start of its text, and a thumbnail: the featured
// image, else the first photo). Made without any network call, so the preview shows what
// syndicate() then sends; the commentary goes out in the "little" format (linkedin-little-text.ts).
import { categories, contentText, firstString, firstUrl, permalink, photos } from "../../contract/jf2.ts";
import type { CopyPreview, PostProperties, PreviewOptions, Publication } from "../../contract/syndicator.ts";
import { fitCopy } from "../shared/fit-copy.ts";
import { cutToFit } from "../shared/fit-text.ts";
import { hashtags } from "../shared/hashtags.ts";
import { siteFit } from "../shared/site-text.ts";
import type { LinkedinOptions } from "./linkedin-options.ts";

/** The Posts API's longest commentary (learn.microsoft.com/linkedin/.../shares/posts-api). */
export const COMMENTARY_LIMIT = 3000;
/** An article card's description is cut to this many characters, at a word. */
const descriptionLimit = 300;

export const linkedinLength = (text: string) => [...text].length;

export interface ArticleCard {
  source: string;
  title: string;
  description: string;
  /** The picture uploaded as the card's thumbnail, when the post has one. */
  image?: string;
}

export interface LinkedinCopy {
  /** A like or repost of a page: LinkedIn has nothing to copy it as. */
  unsupported?: { kind: "like" | "repost"; url: string };
  text: string;
  card?: ArticleCard;
  preview: CopyPreview;
}

export function composeLinkedin(
  properties: PostProperties,
  publication: Publication,
  options: LinkedinOptions,
  words: PreviewOptions,
): LinkedinCopy {
  const likeOf = firstUrl(properties, "like-of", publication.me);
  const repostOf = firstUrl(properties, "repost-of", publication.me);
  if (likeOf || repostOf) {
    const kind = likeOf ? ("like" as const) : ("repost" as const);
    const url = (likeOf ?? repostOf) as string;
    return {
      unsupported: { kind, url },
      text: "",
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
  const ownText = words.text;
  const link = permalink(properties);
  const site = ownText === undefined ? siteFit(properties, options, words.site) : undefined;
  const fits = (text: string) => linkedinLength(text) <= COMMENTARY_LIMIT;
  const fitted =
    site !== undefined
      ? fitCopy({
          body: site.text?.text ?? "",
          hashtags: options.includeCategories && site.hashtags ? hashtags(categories(properties)) : "",
          permalink: link,
          // The card carries the link: the text names it only when asked to, or when it was cut.
          link: site.appendUrl ?? "ifCut",
          fits,
          mayCut: site.mayCut,
        })
      : { text: ownText ?? "", cut: false, linked: link !== undefined && Boolean(ownText?.includes(link)) };
  const card = link ? articleCard(properties, publication, link) : undefined;
  const count = linkedinLength(fitted.text);
  return {
    text: fitted.text,
    ...(card ? { card } : {}),
    preview: {
      text: fitted.text,
      length: { count, limit: COMMENTARY_LIMIT, unit: "characters" },
      over: count > COMMENTARY_LIMIT,
      cut: fitted.cut,
      permalink: fitted.linked ? "text" : card ? "card" : "none",
      photos: [],
      ...(card
        ? {
            linkCard: {
              uri: card.source,
              title: card.title,
              description: card.description,
              ...(card.image ? { image: card.image } : {}),
            },
          }
        : {}),
      ownText: ownText !== undefined,
    },
  };
}

function articleCard(properties: PostProperties, publication: Publication, source: string): ArticleCard {
  const title = firstString(properties, "name") ?? publication.name;
  const text = firstString(properties, "summary") ?? contentText(properties) ?? "";
  const description =
    linkedinLength(text) <= descriptionLimit
      ? text
      : (cutToFit(text, (cut) => linkedinLength(cut) <= descriptionLimit) ?? "");
  const image =
    firstUrl(properties, "featured", publication.me) ?? photos(properties, publication.me)[0]?.url;
  return { source, title, description, ...(image ? { image } : {}) };
}
