// An HTML page's h-feed (microformats2, https://microformats.org/wiki/h-feed) into drafts, with
// microformats-parser. The feed is the first h-feed on the page, looked for among nested items
// too (a page's h-feed often sits inside an h-card or a layout's h-entry); a page with h-entry
// items and no h-feed is read as one, as the h-feed page says consumers should.
import { mf2 } from "microformats-parser";
import { nestedBase } from "../absolute-url.ts";
import type { DraftChoice, EntryDraft, FeedDraft } from "../entry-draft.ts";

type Document = ReturnType<typeof mf2>;
type Item = Document["items"][number];
type Property = Item["properties"][string][number];

const isItem = (value: Property): value is Item =>
  typeof value === "object" && value !== null && "properties" in value;

const typeOf = (item: Item, type: string) => item.type?.includes(type) ?? false;

/** A property's first value as a string (an embedded item's `value`, an image's URL). */
function first(item: Item, name: string): string | undefined {
  for (const value of item.properties[name] ?? []) {
    const found = stringOf(value);
    if (found?.trim()) return found.trim();
  }
  return undefined;
}

function stringOf(value: Property | undefined): string | undefined {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && "value" in value && typeof value.value === "string")
    return value.value;
  return undefined;
}

/** Every item of the page, breadth first: top-level items, then their children and embedded items. */
function* allItems(items: readonly Item[]): Generator<Item> {
  const queue = [...items];
  for (let item = queue.shift(); item; item = queue.shift()) {
    yield item;
    queue.push(...(item.children ?? []));
    for (const values of Object.values(item.properties)) queue.push(...values.filter(isItem));
  }
}

function contentOf(item: Item): EntryDraft["content"] {
  for (const value of item.properties.content ?? []) {
    if (typeof value === "object" && value !== null && "html" in value && value.html.trim()) {
      return { value: value.html, html: true };
    }
    if (typeof value === "string" && value.trim()) return { value, html: false };
  }
  return undefined;
}

function authorOf(item: Item): EntryDraft["author"] {
  const author = item.properties.author?.[0];
  if (author === undefined) return undefined;
  if (isItem(author)) {
    const name = first(author, "name");
    const url = first(author, "url");
    return name || url ? { ...(name ? { name } : {}), ...(url ? { url } : {}) } : undefined;
  }
  const text = stringOf(author)?.trim();
  if (!text) return undefined;
  return /^https?:\/\//i.test(text) ? { url: text } : { name: text };
}

function entryDraft(item: Item, base: string): EntryDraft {
  const draft: EntryDraft = { base, enclosures: [], photos: [], categories: [], choices: [] };
  const uid = first(item, "uid");
  if (uid) draft.id = uid;
  const url = first(item, "url");
  if (url) draft.url = url;
  const name = first(item, "name");
  if (name) draft.title = { value: name, html: false };
  const content = contentOf(item);
  if (content) draft.content = content;
  const summary = first(item, "summary");
  if (summary) draft.summary = { value: summary, html: false };
  const published = first(item, "published");
  if (published) draft.published = published;
  const updated = first(item, "updated");
  if (updated) draft.updated = updated;
  for (const photo of item.properties.photo ?? []) {
    const src = stringOf(photo);
    const alt = typeof photo === "object" && photo !== null && "alt" in photo ? photo.alt.trim() : "";
    if (src?.trim()) draft.photos.push(alt ? { url: src.trim(), alt } : { url: src.trim() });
  }
  for (const [property, type] of [
    ["audio", "audio/*"],
    ["video", "video/*"],
  ] as const) {
    for (const value of item.properties[property] ?? []) {
      const src = stringOf(value)?.trim();
      // The wildcard type says which kind it is without claiming a format the page did not name.
      if (src) draft.enclosures.push({ url: src, type });
    }
  }
  // A category that is an embedded h-card tags a person, not a topic.
  for (const category of item.properties.category ?? []) {
    if (typeof category === "string" && category.trim()) draft.categories.push(category);
  }
  const author = authorOf(item);
  if (author) draft.author = author;
  const syndicateTo = item.properties["mp-syndicate-to"];
  if (syndicateTo) {
    const choice: DraftChoice = { source: "mp-syndicate-to", value: syndicateTo.map(stringOf) };
    draft.choices.push(choice);
  }
  return draft;
}

/** The base of the page's relative URLs: its <base href>, resolved against the page's address. */
function documentBase(html: string, url: string): string {
  const head = html.slice(0, Math.max(0, html.search(/<body[\s>]/i)) || 65_536);
  const href = /<base\s[^>]*?href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(head);
  return nestedBase(href?.[1] ?? href?.[2] ?? href?.[3], url);
}

/**
 * The page's h-feed as a draft, or undefined when the page has no h-feed with entries and no
 * h-entry. `links` are the page's feed links (rel="alternate" with a feed type), for the error.
 */
export function hFeedDraft(html: string, url: string): { draft?: FeedDraft; feedLinks: string[] } {
  const base = documentBase(html, url);
  // microformats-parser resolves a relative <base href> against itself and throws; it is given
  // the page with that one URL made absolute.
  const page = html.replace(
    /(<base\s[^>]*?href\s*=\s*)(?:"[^"]*"|'[^']*'|[^\s>]+)/i,
    (_whole, start: string) => `${start}"${base.replace(/"/g, "&quot;")}"`,
  );
  const document = mf2(page, { baseUrl: url });
  const feedLinks = Object.entries(document["rel-urls"])
    .filter(
      ([, link]) => link.rels.includes("alternate") && /(rss|atom|feed\+json|json)/i.test(link.type ?? ""),
    )
    .map(([href]) => href);
  const items = [...allItems(document.items)];
  const feed = items.find((item) => typeOf(item, "h-feed"));
  const entries = feed
    ? (feed.children ?? []).filter((item) => typeOf(item, "h-entry"))
    : document.items.filter((item) => typeOf(item, "h-entry"));
  if (entries.length === 0) return { feedLinks };
  const draft: FeedDraft = {
    format: "h-feed",
    base,
    entries: entries.map((entry) => entryDraft(entry, base)),
  };
  const title = (feed && first(feed, "name")) ?? /<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1];
  if (title?.trim()) draft.title = { value: title, html: !feed || !first(feed, "name") };
  draft.homeUrl = (feed && first(feed, "url")) ?? url;
  const hub = document.rels.hub?.[0];
  if (hub) draft.hubUrl = hub;
  const self = document.rels.self?.[0];
  if (self) draft.selfUrl = self;
  return { draft, feedLinks };
}
