// RSS 2.0 (and 0.9x), and RSS 1.0 (RDF), as feedsmith reads them, into drafts. RSS has no
// content/summary split of its own: content:encoded is the content when present and the
// description is then the summary; otherwise the description is the content. Both are HTML.
import type { AtomNs, DcNs, DcTermsNs, MediaNs, RdfFeed, RssFeed } from "feedsmith";
import { nestedBase } from "../absolute-url.ts";
import type { EntryDraft, FeedDraft } from "../entry-draft.ts";
import { addAttachment, addMedia } from "./attachments.ts";

/** What RSS 2.0 items and RSS 1.0 items have in common. */
interface CommonItem {
  title?: string;
  link?: string;
  description?: string;
  content?: { encoded?: string };
  dc?: DcNs.ItemOrFeed<string>;
  dcterms?: DcTermsNs.ItemOrFeed<string>;
  atom?: AtomNs.Entry<string>;
  media?: MediaNs.ItemOrFeed;
  xml?: { base?: string };
}

const isWebUrl = (value: string) => /^https?:\/\//i.test(value.trim());

/** "jo@example.com (Jo Doe)" → "Jo Doe": the RSS 2.0 form of an author. */
function personName(value: string | undefined): string | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  const named = /\(([^)]+)\)\s*$/.exec(text);
  return named?.[1]?.trim() || text;
}

function commonDraft(item: CommonItem, feedBase: string): EntryDraft {
  const draft: EntryDraft = {
    base: nestedBase(item.xml?.base, feedBase),
    enclosures: [],
    photos: [],
    categories: [],
    choices: [],
  };
  if (item.title?.trim()) draft.title = { value: item.title, html: false };
  const encoded = item.content?.encoded;
  const description = item.description;
  if (encoded?.trim()) {
    draft.content = { value: encoded, html: true };
    if (description?.trim()) draft.summary = { value: description, html: true };
  } else if (description?.trim()) {
    draft.content = { value: description, html: true };
  }
  const link =
    item.link?.trim() || item.atom?.links?.find((l) => (l.rel ?? "alternate") === "alternate")?.href;
  if (link) draft.url = link;
  const updated = item.atom?.updated ?? item.dcterms?.modified?.[0];
  if (updated) draft.updated = updated;
  draft.categories.push(...(item.dc?.subjects ?? []));
  addMedia(draft, item.media);
  const creator = personName(item.dc?.creators?.[0]);
  if (creator) draft.author = { name: creator };
  return draft;
}

function rssItemDraft(item: RssFeed.Item<string>, feedBase: string): EntryDraft {
  const draft = commonDraft(item, feedBase);
  const guid = item.guid?.value?.trim();
  if (guid) {
    draft.id = guid;
    // A guid is the permalink unless it says isPermaLink="false" (RSS 2.0 spec).
    if (!draft.url && item.guid?.isPermaLink !== false && isWebUrl(guid)) draft.url = guid;
  }
  const published = item.pubDate ?? item.dc?.dates?.[0] ?? item.atom?.published;
  if (published) draft.published = published;
  draft.categories.unshift(...(item.categories ?? []).map((category) => category.name ?? ""));
  for (const enclosure of item.enclosures ?? []) addAttachment(draft, enclosure);
  const author = item.authors?.[0];
  const name = author?.name ?? personName(author?.email);
  if (name) draft.author = { name, ...(author?.link ? { url: author.link } : {}) };
  return draft;
}

function rdfItemDraft(item: RdfFeed.Item<string>, feedBase: string): EntryDraft {
  const draft = commonDraft(item, feedBase);
  // RSS 1.0 names every item by its rdf:about, "usually the same as the link".
  const about = item.rdf?.about?.trim();
  if (about) draft.id = about;
  const published = item.dc?.dates?.[0] ?? item.dcterms?.issued?.[0] ?? item.dcterms?.created?.[0];
  if (published) draft.published = published;
  return draft;
}

function atomLinks(links: Array<{ href?: string; rel?: string }> | undefined) {
  const find = (rel: string) => links?.find((link) => (link.rel ?? "alternate") === rel)?.href;
  return { hub: find("hub"), self: find("self") };
}

function feedDraft(
  format: "rss" | "rdf",
  feed: { title?: string; link?: string; atom?: AtomNs.Feed<string>; xml?: { base?: string } },
  url: string,
  entries: (base: string) => EntryDraft[],
): FeedDraft {
  const base = nestedBase(feed.xml?.base, url);
  const draft: FeedDraft = { format, base, entries: entries(base) };
  if (feed.title?.trim()) draft.title = { value: feed.title, html: false };
  if (feed.link?.trim()) draft.homeUrl = feed.link;
  const { hub, self } = atomLinks(feed.atom?.links);
  if (hub) draft.hubUrl = hub;
  if (self) draft.selfUrl = self;
  return draft;
}

export function rssDraft(feed: RssFeed.Feed<string>, url: string): FeedDraft {
  return feedDraft("rss", feed, url, (base) => (feed.items ?? []).map((item) => rssItemDraft(item, base)));
}

export function rdfDraft(feed: RdfFeed.Feed<string>, url: string): FeedDraft {
  return feedDraft("rdf", feed, url, (base) => (feed.items ?? []).map((item) => rdfItemDraft(item, base)));
}
