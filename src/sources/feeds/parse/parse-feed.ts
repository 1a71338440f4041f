// parseFeed: a fetched body in, a normalised feed out (decisions 0034 and 0038). The format is
// detected from the body; XML must be well-formed (a broken feed is refused with where it breaks,
// rather than read half and taken for a feed that lost its entries); feedsmith reads RSS, RSS 1.0
// and Atom, our own reader JSON Feed, microformats-parser an h-feed; one normaliser makes entries
// of them all. It never throws anything but a FeedParseError, whose message the user can act on.

import { createRequire } from "node:module";
import { XMLValidator } from "fast-xml-parser";
import type * as Feedsmith from "feedsmith";
import { absoluteUrl } from "./absolute-url.ts";
import { decodeBody } from "./decode-body.ts";
import { type BodyKind, detectFormat } from "./detect-format.ts";
import { withoutDoctype } from "./doctype.ts";
import type { FeedDraft } from "./entry-draft.ts";
import type { FeedEntry, FeedProblem, ParsedFeed, ParseFeedInput } from "./feed-entry.ts";
import { FeedParseError } from "./feed-parse-error.ts";
import { atomDraft } from "./formats/atom.ts";
import { atomBase64Constructs } from "./formats/atom-base64.ts";
import { hFeedDraft } from "./formats/h-feed.ts";
import { jsonFeedDraft } from "./formats/json-feed.ts";
import { posseElements } from "./formats/posse-elements.ts";
import { rdfDraft, rssDraft } from "./formats/rss.ts";
import { describeHtmlPage } from "./html-page.ts";
import { normaliseEntry, plainText } from "./normalise-entry.ts";
import { unreadableFeed } from "./unreadable-feed.ts";

/**
 * feedsmith, loaded when the first XML feed is read: its ES module build is 132 files, which every
 * process that starts the host paid for (about 0.6 s of CPU) whether or not it reads a feed. Its
 * CommonJS build is the same parser, and require() keeps parseFeed synchronous.
 */
let feedsmith: typeof Feedsmith | undefined;
const xmlReader = (): typeof Feedsmith =>
  (feedsmith ??= createRequire(import.meta.url)("feedsmith") as typeof Feedsmith);

function xmlDraft(text: string, root: "rss" | "rdf" | "atom", url: string): FeedDraft {
  // The doctype is never read: its entities are not expanded, its DTD not fetched (doctype.ts).
  const xml = withoutDoctype(text);
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw malformedXml(valid.err);
  let draft: FeedDraft;
  try {
    const reader = xmlReader();
    if (root === "rss") draft = rssDraft(reader.parseRssFeed(xml), url);
    else if (root === "rdf") draft = rdfDraft(reader.parseRdfFeed(xml), url);
    else draft = atomDraft(reader.parseAtomFeed(xml), url, atomBase64Constructs(xml));
  } catch {
    throw unreadableFeed(root, xml);
  }
  attachPosseElements(draft, xml);
  return draft;
}

/** The validator's finding in words: a feed cut off (elements left open) is told as such. */
function malformedXml({ line, col, msg }: { line: number; col?: number; msg: string }): FeedParseError {
  const open = /^Invalid '(\[[\s\S]*\])' found/.exec(msg)?.[1];
  let names: unknown;
  try {
    names = open ? JSON.parse(open) : undefined;
  } catch {
    names = undefined;
  }
  const what = Array.isArray(names)
    ? `it ends with ${names.map((name) => `<${String(name)}>`).join(", ")} still open: the response looks cut off`
    : `line ${line}${col ? `, column ${col}` : ""}: ${msg.replace(/\.$/, "")}`;
  return new FeedParseError(
    "malformed-xml",
    `The feed is not well-formed XML (${what}). possekit reads it again at the next fetch; if this stays, the site has to correct its feed.`,
  );
}

/** Gives each entry its `<posse:post>`, matched by position and checked by id. */
function attachPosseElements(draft: FeedDraft, xml: string): void {
  for (const element of posseElements(xml)) {
    const atIndex = draft.entries[element.index];
    const entry =
      element.id === undefined || atIndex?.id === element.id
        ? atIndex
        : (draft.entries.find((candidate) => candidate.id === element.id) ?? atIndex);
    entry?.choices.push(element.choice);
  }
}

function jsonDraft(text: string, url: string): FeedDraft {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new FeedParseError("malformed-json", `The feed is not valid JSON (${reason}).`);
  }
  return jsonFeedDraft(json, url);
}

function htmlDraft(text: string, url: string): FeedDraft {
  const { draft, feedLinks } = hFeedDraft(text, url);
  if (draft) return draft;
  throw describeHtmlPage(text, url, feedLinks);
}

function draftOf(kind: BodyKind, text: string, url: string): FeedDraft {
  switch (kind.kind) {
    case "empty":
      throw new FeedParseError("empty", "The address returned an empty response instead of a feed.");
    case "xml":
      return xmlDraft(text, kind.root, url);
    case "json":
      return jsonDraft(text, url);
    case "html":
      return htmlDraft(text, url);
    case "xml-unterminated":
      throw new FeedParseError(
        "malformed-xml",
        `The feed is not well-formed XML (the ${kind.open} that starts on line ${kind.line} never ends: the response looks cut off). possekit reads it again at the next fetch; if this stays, the site has to correct its feed.`,
      );
    case "xml-other":
      throw new FeedParseError(
        "not-a-feed",
        kind.root.toLowerCase() === "opml"
          ? "The address returned an OPML outline (a list of feeds), not a feed: give the address of one of its feeds."
          : `The address returned an XML document whose root element is <${kind.root}>, not an RSS, RSS 1.0 or Atom feed.`,
      );
    case "text": {
      const start = text.trim().slice(0, 40).replace(/\s+/g, " ");
      throw new FeedParseError(
        "not-a-feed",
        `The address returned neither XML, JSON nor HTML (it starts with "${start}"), so no feed could be read.`,
      );
    }
  }
}

/** Entries in document order, the second and later entries with a key already seen set aside. */
function withoutDuplicates(entries: FeedEntry[], problems: FeedProblem[]): FeedEntry[] {
  const seen = new Set<string>();
  return entries.filter((entry) => {
    if (!seen.has(entry.key)) {
      seen.add(entry.key);
      return true;
    }
    const what = entry.id
      ? `the id "${entry.id}"`
      : entry.url
        ? `the address ${entry.url}`
        : "the same content";
    const title = entry.title ? ` ("${entry.title.slice(0, 60)}")` : "";
    problems.push({
      kind: "duplicate-id",
      entry: entry.key,
      message: `Two entries have ${what}: the later one${title} is ignored until the site gives it an id of its own.`,
    });
    return false;
  });
}

/**
 * Reads a fetched feed in any format we support and normalises its entries.
 *
 * @throws FeedParseError (only): the body is empty, not well-formed, an error page, HTML without
 * an h-feed, or no feed at all; `message` says which, for the user.
 * @example
 * const feed = parseFeed({ body: await response.bytes(), contentType: response.headers.get("content-type"), url });
 * for (const entry of feed.entries) store(entry.key, entry.properties);
 */
export function parseFeed(input: ParseFeedInput): ParsedFeed {
  try {
    const text = decodeBody(input.body, input.contentType ?? undefined);
    const draft = draftOf(detectFormat(text), text, input.url);
    const problems: FeedProblem[] = [];
    const normalised = draft.entries.map(normaliseEntry);
    const entries = withoutDuplicates(normalised, problems);
    for (const entry of entries) {
      for (const message of entry.problems) problems.push({ kind: "entry", entry: entry.key, message });
    }
    const feed: ParsedFeed = { format: draft.format, entries, problems };
    const title = plainText(draft.title);
    if (title) feed.title = title;
    const home = absoluteUrl(draft.homeUrl, draft.base);
    if (home) feed.homeUrl = home;
    const hub = absoluteUrl(draft.hubUrl, draft.base);
    if (hub) feed.hubUrl = hub;
    const self = absoluteUrl(draft.selfUrl, draft.base);
    if (self) feed.selfUrl = self;
    return feed;
  } catch (error) {
    if (error instanceof FeedParseError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new FeedParseError("unreadable", `The feed could not be read (${reason.slice(0, 200)}).`);
  }
}
