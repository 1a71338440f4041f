// One draft, from any format, into the FeedEntry the feed source stores: the rules that make the
// same post read from RSS, Atom, JSON Feed or an h-feed the same entry. URLs absolute against the
// entry's base; HTML made canonical and plain; dates parsed or absent; photos and categories
// without duplicates; a title dropped when it only repeats the content (a note's generated title);
// the JF2 properties of the post; the hash that tells an edit; the key that names the entry.
import { createHash } from "node:crypto";
import type { Photo } from "../../../contract/jf2.ts";
import { htmlToText } from "../../../contract/plain-text.ts";
import { absoluteUrl } from "./absolute-url.ts";
import { contentHtml, textAsHtml } from "./content-html.ts";
import { entryChoices } from "./entry-choices.ts";
import type { DraftText, EntryDraft } from "./entry-draft.ts";
import { parseFeedDate } from "./feed-date.ts";
import type { EntryChoices, FeedAuthor, FeedEnclosure, FeedEntry, TargetChoice } from "./feed-entry.ts";
import { personName } from "./person-name.ts";

const collapse = (text: string) => text.replace(/\s+/g, " ").trim();

/** Text for a title or summary: HTML made plain, whitespace collapsed. */
export function plainText(text: DraftText | undefined): string | undefined {
  if (!text) return undefined;
  const plain = collapse(text.html ? htmlToText(text.value, { links: "drop" }) : text.value);
  return plain || undefined;
}

/**
 * The title a post keeps. Feeds give notes a title because the format wants one: the whole text,
 * or its beginning cut with an ellipsis. Such a title is no name (microformats imply none for a
 * note), and a copy made of it would lose the rest of the note.
 */
function keptTitle(title: string | undefined, html: string | undefined): string | undefined {
  if (!title || !html) return title;
  // The text of the content's beginning is enough, and saves converting a long article twice:
  // HTML that long has more text than any title, so only the cut-title case can apply.
  const limit = Math.max(4096, title.length * 16);
  const whole = html.length <= limit;
  const content = collapse(htmlToText(whole ? html : html.slice(0, limit), { links: "drop" }));
  if (whole && title === content) return undefined;
  const stem = title.replace(/(?:…|\.{3})$/, "").trimEnd();
  return stem !== title && stem.length > 0 && content.startsWith(stem) ? undefined : title;
}

/**
 * The content's text, made when first read. Converting HTML to text is most of the cost of a feed,
 * and a poll stores only the entries that are new or changed: the others never need it. The
 * value is the same whenever it is read (a getter on plain data, enumerable, so JSON and
 * structuredClone carry it).
 */
function lazyText(html: string): () => string | undefined {
  let made = false;
  let value: string | undefined;
  return () => {
    if (!made) {
      value = htmlToText(html) || undefined;
      made = true;
    }
    return value;
  };
}

function date(raw: string | undefined, name: string, problems: string[]): Date | undefined {
  if (raw === undefined || !raw.trim()) return undefined;
  const parsed = parseFeedDate(raw);
  if (!parsed)
    problems.push(`The ${name} date "${raw.trim().slice(0, 60)}" could not be read; it is left out.`);
  return parsed;
}

function photosOf(draft: EntryDraft, base: string): Photo[] {
  const seen = new Map<string, Photo>();
  for (const photo of draft.photos) {
    const url = absoluteUrl(photo.url, base);
    if (!url) continue;
    const known = seen.get(url);
    // The same image named twice (JSON Feed's `image` and an attachment) keeps the alt text it has.
    if (!known || (!known.alt && photo.alt?.trim())) {
      const alt = photo.alt?.trim();
      seen.set(url, alt ? { url, alt } : { url });
    }
  }
  return [...seen.values()];
}

function enclosuresOf(draft: EntryDraft, base: string): FeedEnclosure[] {
  const seen = new Map<string, FeedEnclosure>();
  for (const enclosure of draft.enclosures) {
    const url = absoluteUrl(enclosure.url, base);
    if (url && !seen.has(url)) seen.set(url, { ...enclosure, url });
  }
  return [...seen.values()];
}

function authorOf(draft: EntryDraft, base: string): FeedAuthor | undefined {
  // Whatever the format, an address never passes for a name (it would reach public copies).
  const name = personName(draft.author?.name);
  const url = absoluteUrl(draft.author?.url, base);
  return name || url ? { ...(name ? { name } : {}), ...(url ? { url } : {}) } : undefined;
}

/** The choices that shape a copy's text (decision 0038), or null when the entry makes none. */
function textChoices(choices: EntryChoices | undefined): unknown {
  if (!choices) return null;
  const text = ({ formatString, truncate, appendUrl }: TargetChoice) => [
    formatString ?? null,
    truncate ?? null,
    appendUrl ?? null,
  ];
  const perTarget = Object.entries(choices.perTarget)
    .map(([key, choice]) => [key, text(choice)] as const)
    .filter(([, values]) => values.some((value) => value !== null))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const own = text(choices);
  return perTarget.length > 0 || own.some((value) => value !== null) ? [own, perTarget] : null;
}

function hashOf(properties: Record<string, unknown>, choices: EntryChoices | undefined): string {
  const content = properties.content as { html?: string } | undefined;
  const material: unknown[] = [
    properties.name ?? null,
    content?.html ?? null,
    properties.summary ?? null,
    properties.url ?? null,
    properties.category ?? [],
    properties.photo ?? [],
    properties.audio ?? [],
    properties.video ?? [],
  ];
  // A site that changes only how the copy's text is made has edited what the copies hold; an entry
  // without such choices hashes as it always did.
  const texts = textChoices(choices);
  if (texts !== null) material.push(texts);
  return createHash("sha256").update(JSON.stringify(material)).digest("hex");
}

/** A draft as the entry the feed source stores. */
export function normaliseEntry(draft: EntryDraft): FeedEntry {
  const problems: string[] = [];
  const base = draft.base;
  const id = draft.id?.trim() || undefined;
  const url = absoluteUrl(draft.url, base);
  let html: string | undefined;
  let text: () => string | undefined = () => undefined;
  if (draft.content?.html) {
    const content = contentHtml(draft.content.value, draft.contentBase ?? base);
    if (content.problem) problems.push(content.problem);
    html = content.html || undefined;
    if (html) text = lazyText(html);
  } else if (draft.content) {
    const plain = draft.content.value.trim() || undefined;
    text = () => plain;
    html = plain ? textAsHtml(plain) : undefined;
  }
  const title = keptTitle(plainText(draft.title), html);
  const summary = plainText(draft.summary);
  const published = date(draft.published, "published", problems);
  // Atom requires `updated`; equal to `published`, it says only that the entry was never edited.
  const updatedAt = date(draft.updated, "updated", problems);
  const updated = updatedAt && updatedAt.getTime() !== published?.getTime() ? updatedAt : undefined;
  const unreadable = (raw: string | undefined, read: Date | undefined) =>
    raw?.trim() && !read ? raw.trim() : undefined;
  const unreadableDate =
    unreadable(draft.published, published) ?? (published ? undefined : unreadable(draft.updated, updatedAt));
  const photos = photosOf(draft, base);
  const enclosures = enclosuresOf(draft, base);
  const categories = [...new Set(draft.categories.map(collapse).filter(Boolean))];
  const author = authorOf(draft, base);
  const choices = entryChoices(draft.choices, problems);

  const properties: Record<string, unknown> = { type: "entry" };
  if (title) properties.name = title;
  if (html) {
    properties.content = {
      html,
      get text() {
        return text() ?? "";
      },
    };
  }
  if (summary) properties.summary = summary;
  // A post has a published date; Atom requires only `updated`, which then stands for it.
  const when = published ?? updated;
  if (when) properties.published = when.toISOString();
  if (updated) properties.updated = updated.toISOString();
  if (url) properties.url = url;
  if (id) properties.uid = id;
  if (categories.length > 0) properties.category = categories;
  if (photos.length > 0) properties.photo = photos;
  const ofKind = (kind: string) =>
    enclosures.filter((file) => file.type?.startsWith(`${kind}/`)).map((file) => file.url);
  if (ofKind("audio").length > 0) properties.audio = ofKind("audio");
  if (ofKind("video").length > 0) properties.video = ofKind("video");
  if (author) properties.author = { type: "card", ...author };
  const contentHash = hashOf(properties, choices);

  const entry: FeedEntry = {
    key: id ? `id:${id}` : url ? `url:${url}` : `hash:${contentHash}`,
    photos,
    enclosures,
    categories,
    problems,
    contentHash,
    properties,
  };
  if (id) entry.id = id;
  if (url) entry.url = url;
  if (title) entry.title = title;
  if (html) entry.contentHtml = html;
  if (html) Object.defineProperty(entry, "contentText", { get: text, enumerable: true });
  if (summary) entry.summary = summary;
  if (published) entry.published = published;
  if (updated) entry.updated = updated;
  if (unreadableDate) entry.unreadableDate = unreadableDate;
  if (author) entry.author = author;
  if (choices) entry.choices = choices;
  return entry;
}
