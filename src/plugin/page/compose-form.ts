// The compose page's form (decision 0054): what the owner typed, read from a form-encoded body (Preview,
// Edit) or from a multipart post's text fields (Publish), checked with the page's own words, and
// turned into the Micropub fields or update that the host's endpoint reads like any client's.
import { z } from "zod";
import { photos as photosOf } from "../../contract/jf2.ts";
import { type MicropubFields, MULTIPART_MAX_FILES } from "../../contract/micropub.ts";
import type { Post } from "../../contract/posts.ts";

/** The longest post the page takes: a long article, far below the body limit of a form. */
export const MAX_CONTENT_CHARS = 50_000;
const MAX_TITLE_CHARS = 500;
/** Mastodon's limit for a description: a longer alt text would be refused by the copy. */
export const MAX_ALT_CHARS = 1_500;
const MAX_CATEGORIES_CHARS = 2_000;
/**
 * The most photos a post has from the edit form: every row carries a file input, which a browser
 * sends even when empty, so one save can never bring more rows than a request may bring files.
 */
export const MAX_PHOTOS = MULTIPART_MAX_FILES;
/** The rows for new photos the edit form shows without JavaScript; with it, "Add another photo". */
export const NEW_PHOTO_ROWS = 3;

export type ComposeKind = "note" | "article";

export interface ComposeForm {
  kind: ComposeKind;
  name: string;
  content: string;
  /** Comma-separated, as typed. */
  categories: string;
  alt: string;
  targets: string[];
  /** The edit form's photo rows, in order (decision 0060); empty on the compose page. */
  photos: EditPhoto[];
}

/** One row of the edit form's photos: one the post has, or the row that adds one. */
export interface EditPhoto {
  /** The post's photo the row shows; null for the row that adds a photo. */
  url: string | null;
  /** The file chosen in the row, by its URL once stored: it replaces the photo, or is the new one. */
  upload: string | null;
  alt: string;
  remove: boolean;
}

/** A photo as the post will have it: its URL and its alt text ("" for none). */
export interface PostPhoto {
  url: string;
  alt: string;
}

/** The edit form's photo fields: each row's slot (its photo's URL, or NEW_SLOT), file, alt, remove. */
export const PHOTO_SLOT = "photo-slot";
export const NEW_SLOT = "new";
const PHOTO_ALT = "photo-alt";
const PHOTO_REMOVE = "photo-remove";

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
  [PHOTO_SLOT]: list.catch([]),
  [PHOTO_ALT]: list.catch([]),
  [PHOTO_REMOVE]: list.catch([]),
});

/** The rows of a form-encoded body (the preview): slots and alts pair up; no file comes. */
function rowsOfLists(slots: string[], alts: string[], removed: string[]): EditPhoto[] {
  return slots.map((slot, index) => ({
    url: slot === NEW_SLOT ? null : slot,
    upload: null,
    alt: (alts[index] ?? "").trim(),
    remove: slot !== NEW_SLOT && removed.includes(slot),
  }));
}

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
    photos: rowsOfLists(parsed[PHOTO_SLOT], parsed[PHOTO_ALT], parsed[PHOTO_REMOVE]),
  };
}

/**
 * The photo rows of a multipart edit, read in arrival order: a file belongs to the row whose slot
 * came last before it (a browser sends the fields in the form's order; an empty file input sends none).
 */
export function editPhotosOfFields(fields: MicropubFields): EditPhoto[] {
  const rows: EditPhoto[] = [];
  const removed: string[] = [];
  for (const [key, value] of fields) {
    const name = key.endsWith("[]") ? key.slice(0, -2) : key;
    const row = rows.at(-1);
    if (name === PHOTO_SLOT)
      rows.push({ url: value === NEW_SLOT ? null : value, upload: null, alt: "", remove: false });
    else if (name === "photo" && value !== "" && row && row.upload === null) row.upload = value;
    else if (name === "photo" && value !== "")
      rows.push({ url: null, upload: value, alt: "", remove: false });
    else if (name === PHOTO_ALT && row) row.alt = value.trim();
    else if (name === PHOTO_REMOVE) removed.push(value);
  }
  for (const row of rows) row.remove = row.url !== null && removed.includes(row.url);
  return rows;
}

/** The form from a multipart post's text fields (names as sent: mp-syndicate-to[]). */
export function composeFormOfFields(fields: MicropubFields): ComposeForm {
  const body: Record<string, string | string[]> = {};
  for (const [key, value] of fields) {
    const name = key.endsWith("[]") ? key.slice(0, -2) : key;
    const previous = body[name];
    if (name === "mp-syndicate-to") body[name] = [...(Array.isArray(previous) ? previous : []), value];
    else if (name === PHOTO_SLOT || name === PHOTO_ALT || name === PHOTO_REMOVE) continue;
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
    photos: postPhotos(post).map((photo) => ({
      url: photo.url,
      upload: null,
      alt: photo.alt,
      remove: false,
    })),
  };
}

/** The post's photos, in order, with their alt text. */
export function postPhotos(post: Post): PostPhoto[] {
  return photosOf(post.properties, post.url).map((photo) => ({ url: photo.url, alt: photo.alt ?? "" }));
}

/**
 * The photos the post has once the edit form's rows are applied (decision 0060): a row removed is
 * left out, a file chosen replaces its row's photo, the new row adds its file; a photo no row names
 * (added elsewhere since the form was shown) is kept. Refuses a row naming a photo the post does
 * not have, alt text over the limit, alt text in a new row without a file, and more than
 * MAX_PHOTOS photos.
 */
export function photosAfterEdit(post: Post, rows: readonly EditPhoto[]): PostPhoto[] {
  const before = postPhotos(post);
  const after: PostPhoto[] = [];
  for (const row of rows) {
    if (row.url !== null && !before.some((photo) => photo.url === row.url))
      throw new ComposeRefusal("photoNotOfPost");
    if ([...row.alt].length > MAX_ALT_CHARS)
      throw new ComposeRefusal("altTooLong", { max: String(MAX_ALT_CHARS) });
    if (row.remove) continue;
    const url = row.upload ?? row.url;
    if (url === null) {
      if (row.alt !== "") throw new ComposeRefusal("altWithoutPhoto");
      continue;
    }
    after.push({ url, alt: row.alt });
  }
  const named = new Set(rows.map((row) => row.url));
  const photos = [...after, ...before.filter((photo) => !named.has(photo.url))];
  if (photos.length > MAX_PHOTOS)
    throw new ComposeRefusal("tooManyPhotos", { count: String(photos.length), max: String(MAX_PHOTOS) });
  return photos;
}

const samePhotos = (a: readonly PostPhoto[], b: readonly PostPhoto[]) =>
  a.length === b.length &&
  a.every((photo, index) => photo.url === b[index]?.url && photo.alt === b[index]?.alt);

/**
 * The Micropub update (JSON, replace) that makes the post say what the edit form says: only what
 * changed; a title, categories or photos emptied are deleted. Photos are replaced as a whole, each
 * with its alt text (`photos`: photosAfterEdit). Targets are only ever added to.
 */
export function micropubUpdateOf(
  post: Post,
  form: ComposeForm,
  photos: readonly PostPhoto[],
): Record<string, unknown> | null {
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
  if (!samePhotos(photos, postPhotos(post))) {
    if (photos.length === 0) remove.push("photo");
    else
      replace.photo = photos.map((photo) =>
        photo.alt === "" ? photo.url : { value: photo.url, alt: photo.alt },
      );
  }
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
  if (existing && form.photos.length > 0) {
    // The preview has no file: the photos kept and their alt text as typed, a new row left out; rows
    // the save would refuse leave the photos as they are (the save says why).
    let shown = postPhotos(existing);
    try {
      shown = photosAfterEdit(
        existing,
        form.photos.filter((row) => row.url !== null).map((row) => ({ ...row, upload: null })),
      );
    } catch (error) {
      if (!(error instanceof ComposeRefusal)) throw error;
    }
    if (shown.length > 0)
      properties.photo = shown.map((photo) =>
        photo.alt === "" ? photo.url : { url: photo.url, alt: photo.alt },
      );
    else delete properties.photo;
  }
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
