// Atom (RFC 4287), as feedsmith reads it, into drafts. xml:base nests: the feed's against the URL
// it came from, an entry's against the feed's, content's against its entry's.
import type { AtomFeed } from "feedsmith";
import { nestedBase } from "../absolute-url.ts";
import type { DraftText, EntryDraft, FeedDraft } from "../entry-draft.ts";
import { type Base64Constructs, decodeBase64Text, type EntryBase64, entryBase64 } from "./atom-base64.ts";
import { addAttachment, addMedia } from "./attachments.ts";

type Feed = AtomFeed.Feed<string>;
type Entry = AtomFeed.Entry<string>;
type Link = AtomFeed.Link<string>;

/**
 * Atom text constructs: "text" (the default), "html", "xhtml"; content may name a media type, as
 * Atom 0.3's constructs do (text/plain, text/html, application/xhtml+xml), base64 among them.
 */
function text(
  construct: { value?: string; type?: string } | undefined,
  base64 = false,
): DraftText | undefined {
  const written = construct?.value;
  const value = written !== undefined && base64 ? decodeBase64Text(written) : written;
  if (value === undefined || !value.trim()) return undefined;
  const type = (construct?.type ?? "text").toLowerCase();
  if (type === "html" || type === "xhtml" || type === "text/html" || type === "application/xhtml+xml") {
    return { value, html: true };
  }
  if (type === "text" || type.startsWith("text/")) return { value, html: false };
  // Base64 content of another media type is not text a post can carry.
  return undefined;
}

const relOf = (link: Link) => (link.rel ?? "alternate").toLowerCase();

function alternate(links: Link[] | undefined): string | undefined {
  const alternates = (links ?? []).filter((link) => relOf(link) === "alternate" && link.href);
  const html = alternates.find((link) => !link.type || /html/i.test(link.type));
  return (html ?? alternates[0])?.href;
}

function entryDraft(entry: Entry, feed: Feed, feedBase: string, base64: EntryBase64 | undefined): EntryDraft {
  const base = nestedBase(entry.xml?.base, feedBase);
  const author = entry.authors?.[0] ?? feed.authors?.[0];
  const draft: EntryDraft = {
    base,
    enclosures: [],
    photos: [],
    categories: (entry.categories ?? []).map((category) => category.term ?? "").filter(Boolean),
    choices: [],
  };
  if (entry.id) draft.id = entry.id;
  const url = alternate(entry.links);
  if (url) draft.url = url;
  const title = text(entry.title, base64?.title);
  if (title) draft.title = title;
  // Out-of-line content (src="…") is a link to elsewhere, not the entry's text.
  const content = entry.content?.src ? undefined : text(entry.content, base64?.content);
  if (content) {
    draft.content = content;
    if (entry.content?.xml?.base) draft.contentBase = nestedBase(entry.content.xml.base, base);
  }
  const summary = text(entry.summary, base64?.summary);
  if (summary) draft.summary = summary;
  if (entry.published) draft.published = entry.published;
  if (entry.updated) draft.updated = entry.updated;
  for (const link of entry.links ?? []) {
    if (relOf(link) === "enclosure") {
      addAttachment(draft, { url: link.href, type: link.type, length: link.length, title: link.title });
    }
  }
  addMedia(draft, entry.media);
  if (author?.name || author?.uri) {
    draft.author = {
      ...(author.name ? { name: author.name } : {}),
      ...(author.uri ? { url: author.uri } : {}),
    };
  }
  return draft;
}

/** `base64`: which text constructs Atom 0.3 wrote in base64 (atom-base64.ts), when any. */
export function atomDraft(feed: Feed, url: string, base64?: Base64Constructs): FeedDraft {
  const base = nestedBase(feed.xml?.base, url);
  const link = (rel: string) => feed.links?.find((candidate) => relOf(candidate) === rel)?.href;
  const draft: FeedDraft = {
    format: "atom",
    base,
    entries: (feed.entries ?? []).map((entry, index) =>
      entryDraft(entry, feed, base, entryBase64(base64, index, entry.id)),
    ),
  };
  const title = text(feed.title, base64?.feedTitle);
  if (title) draft.title = title;
  const home = alternate(feed.links);
  if (home) draft.homeUrl = home;
  const hub = link("hub");
  if (hub) draft.hubUrl = hub;
  const self = link("self");
  if (self) draft.selfUrl = self;
  return draft;
}
