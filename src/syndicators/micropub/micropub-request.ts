// The Micropub create request for a copy (https://micropub.spec.indieweb.org/#create). Form
// encoding is the one every server understands; JSON is used only when it carries something form
// encoding cannot: a photo's alt text, or content as HTML.
import { z } from "zod";
import type { PostProperties } from "../../server/contract.ts";
import { categories, contentText, firstString, firstUrl, photos } from "../shared/jf2.ts";

/** Properties whose one URL value is copied as is. */
const responseProperties = ["in-reply-to", "like-of", "repost-of", "bookmark-of"] as const;

const htmlContent = z.object({ html: z.string().trim().min(1) });

function contentHtml(properties: PostProperties): string | undefined {
  const content = Array.isArray(properties.content) ? properties.content[0] : properties.content;
  const parsed = htmlContent.safeParse(content);
  return parsed.success ? parsed.data.html : undefined;
}

export interface MicropubRequest {
  contentType: "application/x-www-form-urlencoded" | "application/json";
  body: string;
}

/** The copy's content when it is not the post's own: the user's words, or what a template made. */
export interface ContentChoice {
  /** Plain text sent as the content instead of the post's (its HTML is then not sent). */
  text?: string;
}

export function micropubRequest(
  properties: PostProperties,
  base: string,
  choice: ContentChoice = {},
): MicropubRequest {
  const name = firstString(properties, "name");
  const summary = firstString(properties, "summary");
  const text = choice.text ?? contentText(properties);
  const html = choice.text === undefined ? contentHtml(properties) : undefined;
  const tags = categories(properties);
  const pictures = photos(properties, base);
  const responses = responseProperties.flatMap((property) => {
    const url = firstUrl(properties, property, base);
    return url ? [[property, url] as const] : [];
  });

  if (html || pictures.some((photo) => photo.alt)) {
    const json: Record<string, unknown[]> = {};
    if (name) json.name = [name];
    if (summary) json.summary = [summary];
    if (html) json.content = [{ html }];
    else if (text) json.content = [text];
    if (tags.length > 0) json.category = tags;
    if (pictures.length > 0) {
      json.photo = pictures.map((photo) => (photo.alt ? { value: photo.url, alt: photo.alt } : photo.url));
    }
    for (const [property, url] of responses) json[property] = [url];
    return { contentType: "application/json", body: JSON.stringify({ type: ["h-entry"], properties: json }) };
  }

  const form = new URLSearchParams({ h: "entry" });
  if (name) form.set("name", name);
  if (summary) form.set("summary", summary);
  if (text) form.set("content", text);
  for (const tag of tags) form.append("category[]", tag);
  for (const photo of pictures) form.append("photo[]", photo.url);
  for (const [property, url] of responses) form.set(property, url);
  return { contentType: "application/x-www-form-urlencoded", body: form.toString() };
}
