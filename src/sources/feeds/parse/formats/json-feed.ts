// JSON Feed 1.0 and 1.1 (https://www.jsonfeed.org/version/1.1/) into drafts. Read here with zod
// rather than through feedsmith: feedsmith keeps only the fields of the specification and drops
// extension objects, and the `_posse` extension (decision 0038) is one of them. Every field is
// read on its own, so that one wrong value costs that value, never the item or the feed.
import { z } from "zod";
import type { DraftText, EntryDraft, FeedDraft } from "../entry-draft.ts";
import { FeedParseError } from "../feed-parse-error.ts";
import { addAttachment } from "./attachments.ts";

const text = z.string().trim().min(1);
/** JSON Feed says ids are strings; some generators write numbers, which mean the same. */
const id = z.union([text, z.number().finite().transform(String)]);
const record = z.record(z.string(), z.unknown());

const envelope = z.object({
  version: z.string().regex(/^https?:\/\/jsonfeed\.org\/version\//i),
  items: z.array(z.unknown()),
});

/** The value of one field, or undefined when it is absent or of the wrong shape. */
function field<T>(object: Record<string, unknown>, name: string, schema: z.ZodType<T>): T | undefined {
  const parsed = schema.safeParse(object[name]);
  return parsed.success ? parsed.data : undefined;
}

/** The author of an item, or of the feed: 1.1's `authors` (an array), 1.0's `author` (one object). */
function authorOf(item: Record<string, unknown>): EntryDraft["author"] {
  const candidates = [...(field(item, "authors", z.array(z.unknown())) ?? []), item.author];
  for (const candidate of candidates) {
    const parsed = record.safeParse(candidate);
    if (!parsed.success) continue;
    const name = field(parsed.data, "name", text);
    const url = field(parsed.data, "url", text);
    if (name || url) return { ...(name ? { name } : {}), ...(url ? { url } : {}) };
  }
  return undefined;
}

function itemDraft(
  value: unknown,
  feedBase: string,
  feedAuthor: EntryDraft["author"],
): EntryDraft | undefined {
  const parsed = record.safeParse(value);
  if (!parsed.success) return undefined;
  const item = parsed.data;
  const draft: EntryDraft = {
    base: feedBase,
    enclosures: [],
    photos: [],
    categories: (field(item, "tags", z.array(z.unknown())) ?? []).flatMap((tag) =>
      typeof tag === "string" && tag.trim() ? [tag] : [],
    ),
    choices: [],
  };
  const set = <K extends keyof EntryDraft>(key: K, found: EntryDraft[K] | undefined) => {
    if (found !== undefined) draft[key] = found;
  };
  set("id", field(item, "id", id));
  set("url", field(item, "url", text));
  const title = field(item, "title", text);
  if (title) draft.title = { value: title, html: false };
  const html = field(item, "content_html", text);
  const plain = field(item, "content_text", text);
  const content: DraftText | undefined = html
    ? { value: html, html: true }
    : plain
      ? { value: plain, html: false }
      : undefined;
  set("content", content);
  const summary = field(item, "summary", text);
  if (summary) draft.summary = { value: summary, html: false };
  set("published", field(item, "date_published", text));
  set("updated", field(item, "date_modified", text));
  const image = field(item, "image", text);
  if (image) draft.photos.push({ url: image });
  for (const attachment of field(item, "attachments", z.array(z.unknown())) ?? []) {
    const file = record.safeParse(attachment);
    if (!file.success) continue;
    addAttachment(draft, {
      url: field(file.data, "url", text),
      type: field(file.data, "mime_type", text),
      length: field(file.data, "size_in_bytes", z.number().int().positive()),
      title: field(file.data, "title", text),
    });
  }
  // JSON Feed: an item without an author of its own has the feed's.
  set("author", authorOf(item) ?? feedAuthor);
  if ("_posse" in item) draft.choices.push({ source: "_posse", value: item._posse });
  return draft;
}

/** Why JSON is not a JSON Feed: what it lacks, named. */
function notJsonFeed(json: unknown): FeedParseError {
  const object = record.safeParse(json);
  let why: string;
  if (!object.success)
    why = `it is ${Array.isArray(json) ? "an array" : `a ${json === null ? "null" : typeof json}`}, not an object`;
  else {
    const version = object.data.version;
    if (version === undefined) why = 'it has no "version"';
    else if (typeof version !== "string" || !envelope.shape.version.safeParse(version).success)
      why = `its "version" is ${JSON.stringify(version)?.slice(0, 80)}, not a JSON Feed version`;
    else if (object.data.items === undefined) why = 'it has no "items"';
    else why = 'its "items" is not an array';
  }
  return new FeedParseError(
    "not-a-feed",
    `The address returned JSON that is not a JSON Feed: ${why} (a JSON Feed has "version": "https://jsonfeed.org/version/1.1" and an "items" array).`,
  );
}

/** A parsed JSON value as a JSON Feed draft; FeedParseError when it is JSON but not a JSON Feed. */
export function jsonFeedDraft(json: unknown, url: string): FeedDraft {
  const feed = record.safeParse(json);
  const checked = envelope.safeParse(json);
  if (!feed.success || !checked.success) throw notJsonFeed(json);
  const feedAuthor = authorOf(feed.data);
  const draft: FeedDraft = {
    format: "json",
    base: url,
    entries: checked.data.items.flatMap((item) => itemDraft(item, url, feedAuthor) ?? []),
  };
  const title = field(feed.data, "title", text);
  if (title) draft.title = { value: title, html: false };
  const home = field(feed.data, "home_page_url", text);
  if (home) draft.homeUrl = home;
  const self = field(feed.data, "feed_url", text);
  if (self) draft.selfUrl = self;
  const hubs = field(feed.data, "hubs", z.array(z.object({ type: z.string(), url: text })));
  const hub = hubs?.find((candidate) => candidate.type.toLowerCase() === "websub") ?? hubs?.[0];
  if (hub) draft.hubUrl = hub.url;
  return draft;
}
