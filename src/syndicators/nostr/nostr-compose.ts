// What a post becomes on Nostr, as an unsigned event, made without any network call so that the
// preview shows what syndicate() signs and sends:
// - a post with a name and a URL: a long-form article (NIP-23, kind 30023), addressable by its `d`
//   tag, which is the post's URL (so republishing it after an edit replaces it), with `title`,
//   `summary`, `published_at` and `image` tags and Markdown content;
// - any other post: a text note (NIP-01, kind 1) with the text, the hashtags and (per appendUrl)
//   the link to the post.
// Photos go in as their URLs (in the text, where clients show them) with an `imeta` tag each
// (NIP-92: `url` and at least one more field — `m`, the media type, and `alt`). Categories become
// `t` tags (NIP-24) as well as hashtags. Nostr sets no length limit, so nothing is ever cut.
import { categories, contentText, type Photo, permalink, photos } from "../../contract/jf2.ts";
import type { CopyPreview, PostProperties, PreviewOptions, Publication } from "../../contract/syndicator.ts";
import { linkRule } from "../shared/copy-template.ts";
import { fitCopy } from "../shared/fit-copy.ts";
import { hashtagFor, hashtags } from "../shared/hashtags.ts";
import { siteFit } from "../shared/site-text.ts";
import type { NostrOptions } from "./nostr-options.ts";

export const NOTE_KIND = 1;
export const ARTICLE_KIND = 30023;

/** An event before its pubkey, id and signature are added (nostr-tools' EventTemplate, without created_at). */
export interface UnsignedContent {
  kind: number;
  tags: string[][];
  content: string;
}

export interface NostrCopy {
  event: UnsignedContent;
  preview: CopyPreview;
}

const mediaTypes: Record<string, string> = {
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
};

/** NIP-92's tag for a photo given by its URL; none when nothing but the URL is known. */
function imetaTag(photo: Photo): string[] | undefined {
  const extension = new URL(photo.url).pathname.split(".").pop()?.toLowerCase() ?? "";
  const fields = [`url ${photo.url}`];
  const type = mediaTypes[extension];
  if (type) fields.push(`m ${type}`);
  if (photo.alt) fields.push(`alt ${photo.alt.replace(/\s+/g, " ")}`);
  return fields.length > 1 ? ["imeta", ...fields] : undefined;
}

function imetaTags(attached: Photo[]): string[][] {
  return attached.flatMap((photo) => {
    const tag = imetaTag(photo);
    return tag ? [tag] : [];
  });
}

function topicTags(properties: PostProperties, options: NostrOptions): string[][] {
  if (!options.includeCategories) return [];
  const seen = new Set<string>();
  return categories(properties).flatMap((category) => {
    const tag = hashtagFor(category)?.toLowerCase();
    if (!tag || seen.has(tag)) return [];
    seen.add(tag);
    return [["t", tag]];
  });
}

const seconds = (date: string | undefined) => {
  const time = date ? Date.parse(date) : Number.NaN;
  return Number.isNaN(time) ? undefined : Math.floor(time / 1000);
};

const firstText = (properties: PostProperties, name: string) => {
  const value = properties[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === "string" && first.trim() ? first.trim() : undefined;
};

function article(
  properties: PostProperties,
  publication: Publication,
  options: NostrOptions,
  url: string,
  title: string,
  words: PreviewOptions,
): NostrCopy {
  const attached = photos(properties, publication.me);
  const body = words.text ?? contentText(properties) ?? "";
  const summary = firstText(properties, "summary");
  const featured = firstText(properties, "featured");
  const published = seconds(firstText(properties, "published"));
  const pictures = attached.map((photo) => `![${(photo.alt ?? "").replace(/[[\]]/g, "")}](${photo.url})`);
  const content = [body, ...pictures, url].filter(Boolean).join("\n\n");
  const tags: string[][] = [
    ["d", url],
    ["title", title],
    ...(summary ? [["summary", summary]] : []),
    ...(published !== undefined ? [["published_at", String(published)]] : []),
    ...(featured || attached[0] ? [["image", featured ?? attached[0]?.url ?? ""]] : []),
    ["r", url],
    ...topicTags(properties, options),
    ...imetaTags(attached),
  ];
  return {
    event: { kind: ARTICLE_KIND, tags, content },
    preview: {
      text: content,
      over: false,
      cut: false,
      permalink: "text",
      photos: attached,
      ownText: words.text !== undefined,
    },
  };
}

function note(
  properties: PostProperties,
  publication: Publication,
  options: NostrOptions,
  words: PreviewOptions,
): NostrCopy {
  const attached = photos(properties, publication.me);
  const link = permalink(properties);
  let text: string;
  let linked: boolean;
  if (words.text !== undefined) {
    text = words.text;
    linked = link !== undefined && text.includes(link);
  } else {
    const site = siteFit(properties, options, words.site);
    const fitted = fitCopy({
      body: site.text?.text ?? "",
      hashtags: options.includeCategories && site.hashtags ? hashtags(categories(properties)) : "",
      permalink: link,
      link: site.appendUrl ?? linkRule(options.appendUrl, options.includePermalink, site.text),
      fits: () => true,
      mayCut: false,
    });
    text = fitted.text;
    linked = fitted.linked;
  }
  const content = [text, ...attached.map((photo) => photo.url)].filter(Boolean).join("\n");
  const tags = [...(link ? [["r", link]] : []), ...topicTags(properties, options), ...imetaTags(attached)];
  return {
    event: { kind: NOTE_KIND, tags, content },
    preview: {
      text: content,
      over: false,
      cut: false,
      permalink: linked ? "text" : "none",
      photos: attached,
      ownText: words.text !== undefined,
    },
  };
}

export function composeNostr(
  properties: PostProperties,
  publication: Publication,
  options: NostrOptions,
  words: PreviewOptions = {},
): NostrCopy {
  const url = permalink(properties);
  const title = firstText(properties, "name");
  if (options.articles && url && title) return article(properties, publication, options, url, title, words);
  return note(properties, publication, options, words);
}
