// The middle step between a format and a FeedEntry: what each format reader (rss, atom, rdf, json,
// h-feed) found, as written, with the base its relative URLs resolve against. One normaliser
// (normalise-entry.ts) turns every draft into an entry, so that the rules for text, URLs, dates,
// identity and choices are written once for all formats.
import type { FeedFormat } from "./feed-entry.ts";

/** Text as the feed wrote it: HTML (to be made plain or cleaned) or plain text. */
export interface DraftText {
  value: string;
  html: boolean;
}

/** A choice object as found in the entry, before validation. */
export interface DraftChoice {
  source: "posse:post" | "_posse" | "mp-syndicate-to";
  /** The decoded value (JSON already parsed), or undefined when `problem` says why it is unreadable. */
  value?: unknown;
  problem?: string;
}

export interface EntryDraft {
  id?: string;
  /** Relative URLs below resolve against this absolute URL (the entry's xml:base, the feed's, the feed URL). */
  base: string;
  url?: string;
  title?: DraftText;
  content?: DraftText;
  /** The base of the content's relative URLs, when it has its own (Atom content's xml:base). */
  contentBase?: string;
  summary?: DraftText;
  published?: string;
  updated?: string;
  enclosures: Array<{ url: string; type?: string; length?: number; title?: string }>;
  photos: Array<{ url: string; alt?: string }>;
  categories: string[];
  author?: { name?: string; url?: string };
  choices: DraftChoice[];
}

export interface FeedDraft {
  format: FeedFormat;
  /** The feed's own base (its xml:base resolved against the URL it came from). */
  base: string;
  title?: DraftText;
  homeUrl?: string;
  hubUrl?: string;
  selfUrl?: string;
  entries: EntryDraft[];
}
