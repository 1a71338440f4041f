// The newest entries of a feed, at most so many. A site's feed may list its whole archive (80,000
// entries fit in the 5 MB a feed may weigh); each entry kept becomes a post from elsewhere, recorded
// one by one, so one read keeps a bounded number and says how many it left out. Which ones: the
// newest by their date (published, else updated); entries without a date come after every dated
// one, in the order the feed lists them. The entries kept stay in the feed's own order.
import type { FeedEntry, FeedProblem, ParsedFeed } from "./feed-entry.ts";

export interface NewestEntries {
  feed: ParsedFeed;
  /** How many entries the feed had (after duplicates were set aside). */
  total: number;
  /** How many of them were left out: the oldest. */
  omitted: number;
}

const dateOf = (entry: FeedEntry) => (entry.published ?? entry.updated)?.getTime();

/**
 * The feed with only its `limit` newest entries, and the problems of those alone (and the feed's own).
 *
 * @example
 * const { feed, omitted } = newestEntries(parseFeed(input), 300);
 * if (omitted > 0) notes.push(`${omitted} older entries were left out`);
 */
export function newestEntries(feed: ParsedFeed, limit: number): NewestEntries {
  const total = feed.entries.length;
  if (total <= limit) return { feed, total, omitted: 0 };
  const ranked = feed.entries
    .map((entry, position) => ({ position, date: dateOf(entry) }))
    .sort((a, b) => {
      if (a.date !== undefined && b.date !== undefined && a.date !== b.date) return b.date - a.date;
      if (a.date !== undefined && b.date === undefined) return -1;
      if (a.date === undefined && b.date !== undefined) return 1;
      return a.position - b.position;
    });
  const kept = new Set(ranked.slice(0, limit).map(({ position }) => position));
  const entries = feed.entries.filter((_, position) => kept.has(position));
  const keys = new Set(entries.map((entry) => entry.key));
  const problems: FeedProblem[] = feed.problems.filter(
    (problem) => problem.entry === undefined || keys.has(problem.entry),
  );
  return { feed: { ...feed, entries, problems }, total, omitted: total - entries.length };
}
