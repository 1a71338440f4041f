// Which entries one read keeps when a feed lists more than maxEntries: the newest by date, undated
// ones after every dated one in the feed's order, the kept ones in the feed's own order, and only
// their problems.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FeedEntry, ParsedFeed } from "./feed-entry.ts";
import { newestEntries } from "./newest-entries.ts";

const entry = (key: string, day?: number, updatedDay?: number): FeedEntry => ({
  key,
  photos: [],
  enclosures: [],
  categories: [],
  problems: [],
  contentHash: key,
  properties: {},
  ...(day !== undefined ? { published: new Date(Date.UTC(2026, 0, day)) } : {}),
  ...(updatedDay !== undefined ? { updated: new Date(Date.UTC(2026, 0, updatedDay)) } : {}),
});

const feed = (entries: FeedEntry[]): ParsedFeed => ({
  format: "atom",
  entries,
  problems: entries.map((one) => ({ kind: "entry", entry: one.key, message: `about ${one.key}` })),
});

describe("newestEntries", () => {
  it("keeps a feed within the bound as it is", () => {
    const whole = feed([entry("a", 1), entry("b", 2)]);
    assert.deepEqual(newestEntries(whole, 2), { feed: whole, total: 2, omitted: 0 });
  });

  it("keeps the newest by published (else updated) date, in the feed's order, with their problems", () => {
    // An archive listed oldest first: the feed's order is no guide to which are newest.
    const archive = feed([entry("old", 1), entry("edited", undefined, 9), entry("mid", 5), entry("new", 8)]);
    const { feed: kept, total, omitted } = newestEntries(archive, 2);
    assert.deepEqual(
      kept.entries.map((one) => one.key),
      ["edited", "new"],
    );
    assert.deepEqual(
      kept.problems.map((problem) => problem.message),
      ["about edited", "about new"],
    );
    assert.equal(total, 4);
    assert.equal(omitted, 2);
  });

  it("counts undated entries older than any dated one, in the order the feed lists them", () => {
    const mixed = feed([entry("undated-1"), entry("dated", 1), entry("undated-2"), entry("undated-3")]);
    assert.deepEqual(
      newestEntries(mixed, 3).feed.entries.map((one) => one.key),
      ["undated-1", "dated", "undated-2"],
    );
  });
});
