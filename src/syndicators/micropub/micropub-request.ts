// The Micropub create request for a copy (https://micropub.spec.indieweb.org/#create). Form
// encoding is the one every server understands; JSON is used only when it carries something form
// encoding cannot: a photo's alt text, or content as HTML.
import { z } from "zod";
import { categories, contentText, firstString, firstUrl, photos } from "../../contract/jf2.ts";
import { micropubUpdateBody } from "../../contract/micropub-wire.ts";
import type { PostProperties } from "../../contract/syndicator.ts";

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

/**
 * The copy's properties as Micropub's JSON syntax writes them: what a create carries (in either
 * encoding) and what an update replaces, so that both always name the same properties.
 */
export type MicropubProperties = Record<string, unknown[]>;

export function micropubProperties(
  properties: PostProperties,
  base: string,
  choice: ContentChoice = {},
): MicropubProperties {
  const name = firstString(properties, "name");
  const summary = firstString(properties, "summary");
  const text = choice.text ?? contentText(properties);
  const html = choice.text === undefined ? contentHtml(properties) : undefined;
  const tags = categories(properties);
  const pictures = photos(properties, base);
  const json: MicropubProperties = {};
  if (name) json.name = [name];
  if (summary) json.summary = [summary];
  if (html) json.content = [{ html }];
  else if (text) json.content = [text];
  if (tags.length > 0) json.category = tags;
  if (pictures.length > 0) {
    json.photo = pictures.map((photo) => (photo.alt ? { value: photo.url, alt: photo.alt } : photo.url));
  }
  for (const property of responseProperties) {
    const url = firstUrl(properties, property, base);
    if (url) json[property] = [url];
  }
  return json;
}

export function micropubRequest(json: MicropubProperties): MicropubRequest {
  const needsJson =
    json.content?.some((value) => typeof value !== "string") ||
    json.photo?.some((value) => typeof value !== "string");
  if (needsJson) {
    return { contentType: "application/json", body: JSON.stringify({ type: ["h-entry"], properties: json }) };
  }
  const form = new URLSearchParams({ h: "entry" });
  for (const [property, values] of Object.entries(json)) {
    // A property with several values is sent as an array (category[]), as Micropub clients do.
    const key = property === "category" || property === "photo" ? `${property}[]` : property;
    for (const value of values) form.append(key, String(value));
  }
  return { contentType: "application/x-www-form-urlencoded", body: form.toString() };
}

/**
 * The update of a copy (https://micropub.spec.indieweb.org/#update): `replace` holds exactly the
 * properties a create would send now, so the copy shows what the preview shows.
 */
export function micropubUpdate(url: string, json: MicropubProperties): MicropubRequest {
  return { contentType: "application/json", body: micropubUpdateBody(url, { replace: json }) };
}
