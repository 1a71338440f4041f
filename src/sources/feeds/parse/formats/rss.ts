// RSS 2.0 (and 0.9x), and RSS 1.0 (RDF), as feedsmith reads them, into drafts. RSS has no
// content/summary split of its own: content:encoded is the content when present and the
// description is then the summary; otherwise the description is the content. Both are HTML.
// Dublin Core stands in for the core elements an item lacks: dc:title, dc:description (or
// dcterms's), dc:date and dcterms:issued/created for the date, dcterms:modified for the edit.
import type { AtomNs, DcNs, DcTermsNs, MediaNs, RdfFeed, RssFeed } from "feedsmith";
import { nestedBase } from "../absolute-url.ts";
import type { EntryDraft, FeedDraft } from "../entry-draft.ts";
import { personName } from "../person-name.ts";
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

/** The first of the values that has text. */
const firstText = (...values: Array<string | undefined>) => values.find((value) => value?.trim());

/** When the item was written: RSS's own element first, then Dublin Core's, then Atom's. */
function publishedOf(item: CommonItem, own: string | undefined): string | undefined {
  return firstText(
    own,
    item.dc?.dates?.[0],
    item.dcterms?.issued?.[0],
    item.dcterms?.created?.[0],
    item.dcterms?.dates?.[0],
    item.atom?.published,
  );
}

function commonDraft(item: CommonItem, feedBase: string): EntryDraft {
  const draft: EntryDraft = {
    base: nestedBase(item.xml?.base, feedBase),
    enclosures: [],
    photos: [],
    categories: [],
    choices: [],
  };
  const title = firstText(item.title, item.dc?.titles?.[0], item.dcterms?.titles?.[0]);
  if (title) draft.title = { value: title, html: false };
  const encoded = item.content?.encoded;
  const description = firstText(
    item.description,
    item.dc?.descriptions?.[0],
    item.dcterms?.descriptions?.[0],
    item.dcterms?.abstracts?.[0],
  );
  if (encoded?.trim()) {
    draft.content = { value: encoded, html: true };
    if (description?.trim()) draft.summary = { value: description, html: true };
  } else if (description?.trim()) {
    draft.content = { value: description, html: true };
  }
  const link =
    item.link?.trim() || item.atom?.links?.find((l) => (l.rel ?? "alternate") === "alternate")?.href;
  if (link) draft.url = link;
  const updated = firstText(item.atom?.updated, item.dcterms?.modified?.[0]);
  if (updated) draft.updated = updated;
  draft.categories.push(...(item.dc?.subjects ?? []));
  addMedia(draft, item.media);
  const creator = personName(item.dc?.creators?.[0] ?? item.dcterms?.creators?.[0]);
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
  const published = publishedOf(item, item.pubDate);
  if (published) draft.published = published;
  draft.categories.unshift(...(item.categories ?? []).map((category) => category.name ?? ""));
  for (const enclosure of item.enclosures ?? []) addAttachment(draft, enclosure);
  const author = item.authors?.[0];
  const name = personName(author?.name);
  if (name) draft.author = { name, ...(author?.link ? { url: author.link } : {}) };
  return draft;
}

function rdfItemDraft(item: RdfFeed.Item<string>, feedBase: string): EntryDraft {
  const draft = commonDraft(item, feedBase);
  // RSS 1.0 names every item by its rdf:about, "usually the same as the link".
  const about = item.rdf?.about?.trim();
  if (about) draft.id = about;
  const published = publishedOf(item, undefined);
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
