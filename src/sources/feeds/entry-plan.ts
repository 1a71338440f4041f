// What one read of a feed means (decisions 0035 and 0036), decided without the network or the
// database: which entries are posts already known (matched by id, else URL: an entry with neither
// is keyed by its content's hash by the parser, but cannot become a post without a URL, and the
// hash covers the URL, so it never matches an entry whose link changed),
// which are new and to which targets each goes, and when to send nothing at all.
//
// - The first read sends nothing: every entry is recorded as known, but for `backfill` newest.
// - Later, a new entry goes to the feed's targets (only with one of `categories` when set; narrowed
//   by the entry's own choices), unless it is dated more than 3 days before the newest entry known:
//   a reordered or re-dated archive does not flood the targets. A new entry whose date cannot be
//   read is recorded, not sent: its age is unknown, and an archive entry must not pass for new.
// - A site that changed the id of most entries at once (their URLs match known ones)
//   is held: nothing is recorded, the reason is the feed's error, and the user decides.
// - An entry that drops out of the feed is simply not in it: nothing here ever deletes.

import type { SiteText } from "../../contract/syndicator.ts";
import type { KnownEntry } from "./feed-store.ts";
import type { FeedEntry } from "./parse/index.ts";
import { choiceFor, siteTextsFor } from "./site-text.ts";

/** How far before the newest known entry a new one may be dated and still be sent. */
export const LATE_ENTRY_MS = 3 * 86_400_000;

export interface FeedRouting {
  /** The feed's targets (uids). */
  targets: readonly string[];
  /** Only entries with one of these are sent (compared without regard to case). */
  categories?: readonly string[] | undefined;
  /** The newest N entries of the first read are sent. */
  backfill: number;
  /** The platform tags that name a target ("mastodon", "bsky"…; see site-text.ts); none: only its uid. */
  platforms?: ((uid: string) => readonly string[]) | undefined;
}

export interface PlanInput {
  entries: readonly FeedEntry[];
  /** The known entries any entry's id or URL names (FeedStore.matching). */
  known: readonly KnownEntry[];
  routing: FeedRouting;
  /** True at the first read (or after the user accepted a held change). */
  baseline: boolean;
  /** The newest date of the entries known before this read. */
  newestKnown: Date | null;
  now: number;
}

export type PlannedEntry =
  /**
   * Never seen: record it, with these targets (none: known, not sent), and the site's text choice
   * for each of the feed's targets it makes one for.
   */
  | {
      kind: "new";
      entry: FeedEntry & { url: string };
      published: Date;
      targets: string[];
      texts: Record<string, SiteText>;
    }
  /** Known, and its URL, content or text choices changed: record it again (the core edits the copies). */
  | {
      kind: "changed";
      entry: FeedEntry & { url: string };
      known: KnownEntry;
      texts: Record<string, SiteText>;
    }
  /** Known, its id alone differs (the site gave it one, or changed a few): keep the new id. */
  | { kind: "rekeyed"; entry: FeedEntry & { url: string }; known: KnownEntry };

export interface Plan {
  /** Set when the read is held: nothing is to be recorded; the sentence is the feed's error. */
  held?: string;
  entries: PlannedEntry[];
  /** What was set aside and why, for the user (one sentence each). */
  notes: string[];
}

const label = (entry: FeedEntry) => (entry.title ? `"${entry.title}"` : (entry.url ?? entry.key));

/** The targets a new entry goes to: the feed's, filtered by its categories, narrowed by the entry's choices. */
export function targetsFor(entry: FeedEntry, routing: FeedRouting): string[] {
  if (routing.categories) {
    const wanted = new Set(routing.categories.map((category) => category.toLowerCase()));
    if (!entry.categories.some((category) => wanted.has(category.toLowerCase()))) return [];
  }
  const choices = entry.choices;
  if (!choices) return [...routing.targets];
  const named = choices.targets ? new Set(choices.targets) : null;
  // POSSE Party's precedence: a platform's or a target's own `syndicate` overrides the entry's.
  return routing.targets.filter(
    (uid) =>
      (named === null || named.has(uid)) &&
      choiceFor(choices, uid, routing.platforms?.(uid) ?? []).syndicate !== false,
  );
}

/** The site's text choices of an entry for the feed's targets (site-text.ts). */
export function textsFor(entry: FeedEntry, routing: FeedRouting): Record<string, SiteText> {
  return siteTextsFor(entry, routing.targets, (uid) => routing.platforms?.(uid) ?? []);
}

export function planRead(input: PlanInput): Plan {
  const { entries, known, routing, baseline, newestKnown, now } = input;
  const byId = new Map<string, KnownEntry>();
  const byUrl = new Map<string, KnownEntry>();
  for (const entry of known) {
    if (entry.entryId !== null) byId.set(entry.entryId, entry);
    byUrl.set(entry.url, entry);
  }
  const notes: string[] = [];
  const matched = new Set<string>();
  const planned: PlannedEntry[] = [];
  const fresh: Array<FeedEntry & { url: string }> = [];
  let idsChanged = 0;

  for (const entry of entries) {
    const match =
      (entry.id !== undefined ? byId.get(entry.id) : undefined) ??
      (entry.url !== undefined ? byUrl.get(entry.url) : undefined);
    if (!entry.url) {
      if (!match)
        notes.push(`An entry without a link (${label(entry)}) was not recorded: a post needs its URL`);
      continue;
    }
    const withUrl = { ...entry, url: entry.url };
    if (!match) {
      fresh.push(withUrl);
      continue;
    }
    if (matched.has(match.postId)) {
      notes.push(`${label(entry)} repeats an entry read already (same link); it was read once`);
      continue;
    }
    matched.add(match.postId);
    const idDiffers = entry.id !== undefined && entry.id !== match.entryId;
    if (idDiffers && match.entryId !== null) idsChanged += 1;
    if (match.url !== entry.url || match.contentHash !== entry.contentHash)
      planned.push({ kind: "changed", entry: withUrl, known: match, texts: textsFor(entry, routing) });
    else if (idDiffers) planned.push({ kind: "rekeyed", entry: withUrl, known: match });
  }

  // Most entries carry new ids while their links or contents are known: the site's software changed
  // how it names entries. Nothing is recorded until the user has looked (one id changed is an edit).
  if (!baseline && idsChanged >= 2 && idsChanged * 2 > entries.length)
    return {
      held: `The feed changed the id of ${idsChanged} of its ${entries.length} entries at once (their links are known ones): nothing was sent or recorded. If the site moved to new ids on purpose, accept them on the Syndicate page; the entries will then be known under the new ids and nothing will be sent.`,
      entries: [],
      notes,
    };

  const dated = (entry: FeedEntry): Date | undefined => entry.published ?? entry.updated;
  const backfilled = new Set(
    baseline
      ? fresh
          .filter((entry) => dated(entry) !== undefined)
          .sort((a, b) => (dated(b)?.getTime() ?? 0) - (dated(a)?.getTime() ?? 0))
          .slice(0, routing.backfill)
      : [],
  );
  const lateBefore = newestKnown ? newestKnown.getTime() - LATE_ENTRY_MS : null;
  const news: PlannedEntry[] = fresh.map((entry) => {
    const date = dated(entry);
    if (!date && !entry.unreadableDate)
      notes.push(`${label(entry)} has no date: it is dated by when it was first seen`);
    const published = date ?? new Date(now);
    let targets: string[];
    if (baseline) targets = backfilled.has(entry) ? targetsFor(entry, routing) : [];
    else if (!entry.published && entry.unreadableDate) {
      targets = [];
      notes.push(
        `${label(entry)} is new but its date "${entry.unreadableDate.slice(0, 60)}" could not be read, so it may be an old entry: recorded, not sent (send it from the Syndicate page)`,
      );
    } else if (lateBefore !== null && published.getTime() < lateBefore) {
      targets = [];
      notes.push(
        `${label(entry)} is new but dated more than 3 days before the newest entry known: recorded, not sent (send it from the Syndicate page)`,
      );
    } else targets = targetsFor(entry, routing);
    return { kind: "new", entry, published, targets, texts: textsFor(entry, routing) };
  });
  // Oldest first: posts are recorded (and their ids given) in the order they were written.
  news.sort((a, b) =>
    a.kind === "new" && b.kind === "new" ? a.published.getTime() - b.published.getTime() : 0,
  );
  return { entries: [...planned, ...news], notes };
}
