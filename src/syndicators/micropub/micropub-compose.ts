// What a post becomes on another Micropub site: the create request, with the content as the post has
// it, or as the `template` renders it (with the URL when `appendUrl` is "always"), or in the user's
// own words. Made without any network call, so the preview shows what syndicate() then sends.

import { countGraphemes } from "../../contract/graphemes.ts";
import { contentText, firstUrl, permalink, photos } from "../../contract/jf2.ts";
import type { CopyPreview, PostProperties, PreviewOptions, Publication } from "../../contract/syndicator.ts";
import type { MicropubOptions } from "./micropub-options.ts";
import {
  type MicropubProperties,
  type MicropubRequest,
  micropubProperties,
  micropubRequest,
} from "./micropub-request.ts";

export interface MicropubCopy {
  /** The copy's properties: what a create sends and an update replaces. */
  properties: MicropubProperties;
  request: MicropubRequest;
  preview: CopyPreview;
}

const responseKinds = [
  ["like-of", "like"],
  ["repost-of", "repost"],
  ["in-reply-to", "reply"],
] as const;

export function composeMicropub(
  properties: PostProperties,
  publication: Publication,
  options: MicropubOptions,
  words: PreviewOptions,
): MicropubCopy {
  const link = permalink(properties);
  const ownText = words.text;
  // The site's choice (a feed entry's): its text and append_url over the options; nothing is cut here.
  const site = ownText === undefined ? words.site : undefined;
  const appendUrl = site?.appendUrl === undefined ? options.appendUrl === "always" : site.appendUrl;
  let content = ownText;
  if (content === undefined && (options.template || appendUrl || site?.text !== undefined)) {
    const made =
      site?.text ?? (options.template ? options.template(properties) : (contentText(properties) ?? ""));
    content = appendUrl && link ? [made, link].filter(Boolean).join("\n\n") : made;
  }
  const copied = micropubProperties(
    properties,
    publication.me,
    content === undefined ? {} : { text: content },
  );
  const text = content ?? contentText(properties);
  const action = responseKinds.flatMap(([property, kind]) => {
    const url = firstUrl(properties, property, publication.me);
    return url ? [{ kind, url }] : [];
  })[0];
  return {
    properties: copied,
    request: micropubRequest(copied),
    preview: {
      ...(text === undefined ? {} : { text, length: { count: countGraphemes(text), unit: "graphemes" } }),
      over: false,
      cut: false,
      permalink: link && text?.includes(link) ? "text" : "none",
      photos: photos(properties, publication.me),
      ...(action ? { action } : {}),
      ownText: ownText !== undefined,
    },
  };
}
