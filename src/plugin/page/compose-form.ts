// The compose page's form (decision 0054): what the owner typed, read from a form-encoded body (Preview,
// Edit) or from a multipart post's text fields (Publish), checked with the page's own words, and
// turned into the Micropub fields or update that the host's endpoint reads like any client's.
import { z } from "zod";
import type { MicropubFields } from "../../contract/micropub.ts";
import type { Post } from "../../contract/posts.ts";

/** The longest post the page takes: a long article, far below the body limit of a form. */
export const MAX_CONTENT_CHARS = 50_000;
const MAX_TITLE_CHARS = 500;
/** Mastodon's limit for a description: a longer alt text would be refused by the copy. */
export const MAX_ALT_CHARS = 1_500;
const MAX_CATEGORIES_CHARS = 2_000;

export type ComposeKind = "note" | "article";

export interface ComposeForm {
  kind: ComposeKind;
  name: string;
  content: string;
  /** Comma-separated, as typed. */
  categories: string;
  alt: string;
  targets: string[];
}

/** Why the page refuses a form: a locale key under compose.errors, and its values. */
export class ComposeRefusal extends Error {
  constructor(
    readonly key: string,
    readonly values: Record<string, string> = {},
  ) {
    super(key);
    this.name = "ComposeRefusal";
  }
}

const list = z.preprocess(
  (value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]),
  z.array(z.string().max(2048)).max(100),
);
const text = z.preprocess((value) => (typeof value === "string" ? value : ""), z.string());
const composeSchema = z.object({
  kind: z.enum(["note", "article"]).catch("note"),
  name: text,
  content: text,
  category: text,
  "mp-photo-alt": text,
  "mp-syndicate-to": list.catch([]),
});

/** The form from a form-encoded body (the host's parser gives mp-syndicate-to[] as a list). */
export function readComposeForm(body: unknown): ComposeForm {
  const parsed = composeSchema.parse(body ?? {});
  return {
    kind: parsed.kind,
    name: parsed.name.trim(),
    content: parsed.content.replace(/\r\n/g, "\n"),
    categories: parsed.category,
    alt: parsed["mp-photo-alt"].trim(),
    targets: parsed["mp-syndicate-to"],
  };
}

/** The form from a multipart post's text fields (names as sent: mp-syndicate-to[]). */
export function composeFormOfFields(fields: MicropubFields): ComposeForm {
  const body: Record<string, string | string[]> = {};
  for (const [key, value] of fields) {
    const name = key.endsWith("[]") ? key.slice(0, -2) : key;
    const previous = body[name];
    if (name === "mp-syndicate-to") body[name] = [...(Array.isArray(previous) ? previous : []), value];
    else if (previous === undefined) body[name] = value;
  }
  return readComposeForm(body);
}

export function categoriesOf(form: ComposeForm): string[] {
  return [
    ...new Set(
      form.categories
        .split(",")
        .map((category) => category.trim())
        .filter(Boolean),
    ),
  ];
}

/** Refuses what the page must not send, in the reader's words; `photo` says whether one comes. */
export function checkComposeForm(form: ComposeForm, photo: boolean, knownTargets: readonly string[]): void {
  if (form.content.trim() === "" && !photo) throw new ComposeRefusal("empty");
  if ([...form.content].length > MAX_CONTENT_CHARS)
    throw new ComposeRefusal("tooLong", {
      count: [...form.content].length.toLocaleString("en"),
      max: MAX_CONTENT_CHARS.toLocaleString("en"),
    });
  if (form.kind === "article" && form.name === "") throw new ComposeRefusal("noTitle");
  if ([...form.name].length > MAX_TITLE_CHARS)
    throw new ComposeRefusal("titleTooLong", { max: String(MAX_TITLE_CHARS) });
  if (form.categories.length > MAX_CATEGORIES_CHARS) throw new ComposeRefusal("categoriesTooLong");
  if ([...form.alt].length > MAX_ALT_CHARS)
    throw new ComposeRefusal("altTooLong", { max: String(MAX_ALT_CHARS) });
  if (form.alt !== "" && !photo) throw new ComposeRefusal("altWithoutPhoto");
  const unknown = form.targets.find((uid) => !knownTargets.includes(uid));
  if (unknown !== undefined) throw new ComposeRefusal("unknownTarget", { uid: unknown });
}

/** The Micropub form fields for a new post (a note, or an article with its title). */
export function micropubFieldsOf(form: ComposeForm, photoUrls: readonly string[]): MicropubFields {
  return [
    ["h", "entry"],
    ...(form.content.trim() === "" ? [] : [["content", form.content] as [string, string]]),
    ...(form.kind === "article" ? [["name", form.name] as [string, string]] : []),
    ...categoriesOf(form).map((category): [string, string] => ["category[]", category]),
    ...photoUrls.map((url): [string, string] => ["photo[]", url]),
    ...(form.alt !== "" && photoUrls.length > 0 ? [["mp-photo-alt", form.alt] as [string, string]] : []),
    ...form.targets.map((uid): [string, string] => ["mp-syndicate-to[]", uid]),
  ];
}

/** The post's own text, as the edit form shows it. */
export function contentText(properties: Record<string, unknown>): string {
  const content = properties.content;
  if (typeof content === "string") return content;
  if (content && typeof content === "object") {
    const { text: plain, html } = content as { text?: unknown; html?: unknown };
    if (typeof plain === "string") return plain;
    if (typeof html === "string") return html;
  }
  return "";
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];

/** The edit form of a stored post. */
export function composeFormOfPost(post: Post): ComposeForm {
  const name = typeof post.properties.name === "string" ? post.properties.name : "";
  const photo = Array.isArray(post.properties.photo) ? post.properties.photo[0] : undefined;
  const alt = photo && typeof photo === "object" ? (photo as { alt?: unknown }).alt : undefined;
  return {
    kind: name === "" ? "note" : "article",
    name,
    content: contentText(post.properties),
    categories: strings(post.properties.category).join(", "),
    alt: typeof alt === "string" ? alt : "",
    targets: strings(post.properties["mp-syndicate-to"]),
  };
}

/** The post's photos by URL (JF2: strings or {url, alt}). */
function photoUrls(properties: Record<string, unknown>): string[] {
  const photos = Array.isArray(properties.photo) ? properties.photo : [];
  return photos.flatMap((photo) =>
    typeof photo === "string"
      ? [photo]
      : photo && typeof photo === "object" && typeof (photo as { url?: unknown }).url === "string"
        ? [(photo as { url: string }).url]
        : [],
  );
}

/**
 * The Micropub update (JSON, replace) that makes the post say what the edit form says: only what
 * changed; a title or categories emptied are deleted. Targets are only ever added to.
 */
export function micropubUpdateOf(post: Post, form: ComposeForm): Record<string, unknown> | null {
  const before = composeFormOfPost(post);
  const replace: Record<string, unknown[]> = {};
  const remove: string[] = [];
  if (form.content !== before.content) replace.content = [form.content];
  const name = form.kind === "article" ? form.name : "";
  if (name !== before.name) {
    if (name === "") remove.push("name");
    else replace.name = [name];
  }
  const categories = categoriesOf(form);
  if (categories.join("\n") !== categoriesOf(before).join("\n")) {
    if (categories.length === 0) remove.push("category");
    else replace.category = categories;
  }
  const photos = photoUrls(post.properties);
  if (form.alt !== before.alt && photos.length > 0)
    replace.photo = photos.map((url, index) =>
      index === 0 && form.alt !== "" ? { value: url, alt: form.alt } : url,
    );
  const targets = [...new Set([...before.targets, ...form.targets])];
  if (targets.length !== before.targets.length) replace["mp-syndicate-to"] = targets;
  if (Object.keys(replace).length === 0 && remove.length === 0) return null;
  return {
    action: "update",
    url: post.url,
    ...(Object.keys(replace).length > 0 ? { replace } : {}),
    ...(remove.length > 0 ? { delete: remove } : {}),
  };
}

/** A post not yet written, for the preview: what each target would receive once it is. */
export function draftPost(form: ComposeForm, url: string, now: Date, existing?: Post): Post {
  const categories = categoriesOf(form);
  const properties: Record<string, unknown> = {
    ...(existing?.properties ?? {}),
    type: "entry",
    url,
    published: existing?.properties.published ?? now.toISOString(),
    content: form.content,
    "mp-syndicate-to": [
      ...new Set([...(existing ? composeFormOfPost(existing).targets : []), ...form.targets]),
    ],
  };
  if (form.kind === "article" && form.name !== "") properties.name = form.name;
  else delete properties.name;
  if (categories.length > 0) properties.category = categories;
  else delete properties.category;
  return {
    id: existing?.id ?? "0",
    url,
    properties,
    status: "published",
    published: existing?.published ?? now,
    created: existing?.created ?? now,
    updated: now,
    deleted: false,
  };
}
