// The rules of a read, without network or database: the site's own choices narrow the feed's
// targets, and one entry whose id changed is an edit, not a mass change.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { planRead, targetsFor } from "./entry-plan.ts";
import type { KnownEntry } from "./feed-store.ts";
import { type FeedEntry, parseFeed } from "./parse/index.ts";

const MASTODON = "https://mastodon.example/@me";
const BLUESKY = "https://bsky.app/profile/me.example";
const routing = { targets: [MASTODON, BLUESKY], backfill: 0 };

const entry = (n: number, extra: Partial<FeedEntry> = {}): FeedEntry => ({
  key: `id:${n}`,
  id: `${n}`,
  url: `https://blog.example/${n}/`,
  title: `Post ${n}`,
  published: new Date(Date.UTC(2026, 0, n)),
  photos: [],
  enclosures: [],
  categories: [],
  problems: [],
  contentHash: `hash-${n}`,
  properties: { name: `Post ${n}` },
  ...extra,
});
const known = (n: number, extra: Partial<KnownEntry> = {}): KnownEntry => ({
  postId: `${100 + n}`,
  entryId: `${n}`,
  url: `https://blog.example/${n}/`,
  contentHash: `hash-${n}`,
  published: new Date(Date.UTC(2026, 0, n)),
  ...extra,
});

describe("the targets of a new entry", () => {
  it("are the feed's, narrowed by the targets the entry names and by a target it turns down", () => {
    assert.deepEqual(targetsFor(entry(1), routing), [MASTODON, BLUESKY]);
    const named = entry(1, {
      choices: {
        targets: [BLUESKY, "https://elsewhere.example/"],
        perTarget: {},
        sources: ["mp-syndicate-to"],
      },
    });
    assert.deepEqual(targetsFor(named, routing), [BLUESKY], "never a target the feed does not name");
    const declined = entry(1, {
      choices: { perTarget: { [MASTODON]: { syndicate: false } }, sources: ["_posse"] },
    });
    assert.deepEqual(targetsFor(declined, routing), [BLUESKY]);
    const none = entry(1, { choices: { syndicate: false, perTarget: {}, sources: ["posse:post"] } });
    assert.deepEqual(targetsFor(none, routing), []);
  });
});

describe("a read", () => {
  it("takes one entry whose id changed for the same post, and holds when most ids changed", () => {
    const base = {
      routing,
      baseline: false,
      newestKnown: new Date(Date.UTC(2026, 0, 3)),
      now: Date.UTC(2026, 0, 4),
    };
    const one = planRead({
      ...base,
      entries: [entry(3, { id: "new-3" }), entry(2), entry(1)],
      known: [known(3), known(2), known(1)],
    });
    assert.equal(one.held, undefined);
    assert.deepEqual(
      one.entries.map((planned) => [planned.kind, planned.entry.id]),
      [["rekeyed", "new-3"]],
    );
    const most = planRead({
      ...base,
      entries: [entry(3, { id: "new-3" }), entry(2, { id: "new-2" }), entry(1)],
      known: [known(3), known(2), known(1)],
    });
    assert.match(most.held ?? "", /changed the id of 2 of its 3 entries/);
    assert.deepEqual(most.entries, []);
  });
});

describe("a new entry's date", () => {
  // The site's feed as read after the baseline: an entry with a date possekit cannot read, and one
  // with no date at all.
  const feed = parseFeed({
    url: "https://blog.example/feed.xml",
    body: `<rss version="2.0"><channel><title>Blog</title>
      <item><guid>old</guid><link>https://blog.example/old/</link><title>From the archive</title>
        <pubDate>le 3 mars de l'an 2009</pubDate></item>
      <item><guid>undated</guid><link>https://blog.example/undated/</link><title>Undated</title></item>
    </channel></rss>`,
  });
  const read = () =>
    planRead({
      entries: feed.entries,
      known: [],
      routing,
      baseline: false,
      newestKnown: new Date(Date.UTC(2026, 0, 3)),
      now: Date.UTC(2026, 0, 4),
    });

  it("that cannot be read records the entry without sending it; one that is missing still goes out", () => {
    const plan = read();
    const unreadable = plan.entries.find((planned) => planned.entry.id === "old");
    assert.equal(unreadable?.kind, "new");
    assert.deepEqual(unreadable?.kind === "new" ? unreadable.targets : undefined, []);
    assert.ok(
      plan.notes.includes(
        `"From the archive" is new but its date "le 3 mars de l'an 2009" could not be read, so it may be an old entry: recorded, not sent (send it from the Syndicate page)`,
      ),
      plan.notes.join("\n"),
    );
    // An entry without any date is dated by when it was first seen, and sent as before.
    const undated = plan.entries.find((planned) => planned.entry.id === "undated");
    assert.deepEqual(undated?.kind === "new" ? undated.targets : undefined, [MASTODON, BLUESKY]);
    assert.equal(undated?.kind === "new" ? undated.published.getTime() : undefined, Date.UTC(2026, 0, 4));
    assert.ok(plan.notes.includes(`"Undated" has no date: it is dated by when it was first seen`));
  });
});

describe("a site that starts giving ids to entries it had none for", () => {
  it("keeps the new ids of every entry known by its link, without holding the read", () => {
    const plan = planRead({
      entries: [entry(3), entry(2), entry(1)],
      // Known by URL only: the site gave no ids until now.
      known: [known(3, { entryId: null }), known(2, { entryId: null }), known(1, { entryId: null })],
      routing,
      baseline: false,
      newestKnown: new Date(Date.UTC(2026, 0, 3)),
      now: Date.UTC(2026, 0, 4),
    });
    assert.equal(plan.held, undefined, "ids given where there were none are no mass change");
    assert.deepEqual(
      plan.entries.map((planned) => [
        planned.kind,
        planned.entry.id,
        planned.kind === "rekeyed" && planned.known.postId,
      ]),
      [
        ["rekeyed", "3", "103"],
        ["rekeyed", "2", "102"],
        ["rekeyed", "1", "101"],
      ],
    );
  });
});

describe("the window for a late new entry", () => {
  const newest = Date.UTC(2026, 0, 10);
  const sentTo = (published: number) => {
    const plan = planRead({
      entries: [entry(20, { published: new Date(published) })],
      known: [],
      routing,
      baseline: false,
      newestKnown: new Date(newest),
      now: newest + 86_400_000,
    });
    const planned = plan.entries[0];
    return { targets: planned?.kind === "new" ? planned.targets : undefined, notes: plan.notes };
  };

  it("sends an entry dated up to 3 days before the newest known, and records an older one unsent", () => {
    assert.deepEqual(sentTo(newest - 3 * 86_400_000).targets, [MASTODON, BLUESKY], "exactly 3 days: sent");
    assert.deepEqual(sentTo(newest - 2 * 86_400_000).targets, [MASTODON, BLUESKY]);
    const late = sentTo(newest - 3 * 86_400_000 - 1);
    assert.deepEqual(late.targets, [], "a millisecond past 3 days: recorded, not sent");
    assert.deepEqual(late.notes, [
      `"Post 20" is new but dated more than 3 days before the newest entry known: recorded, not sent (send it from the Syndicate page)`,
    ]);
    assert.deepEqual(sentTo(newest - 4 * 86_400_000).targets, []);
  });

  it("is not applied at all when nothing was known before", () => {
    const plan = planRead({
      entries: [entry(1, { published: new Date(Date.UTC(2020, 0, 1)) })],
      known: [],
      routing,
      baseline: false,
      newestKnown: null,
      now: newest,
    });
    assert.deepEqual(plan.entries[0]?.kind === "new" ? plan.entries[0].targets : undefined, [
      MASTODON,
      BLUESKY,
    ]);
  });
});

// Rules the generated mutants (StrykerJS, docs/testing.md) found untested by this file.
describe("a read's other rules", () => {
  const later = {
    routing,
    baseline: false,
    newestKnown: new Date(Date.UTC(2026, 0, 3)),
    now: Date.UTC(2026, 0, 4),
  };
  const kinds = (plan: ReturnType<typeof planRead>) =>
    plan.entries.map((planned) => [planned.kind, planned.entry.url]);

  it("holds only when at least 2 and more than half of the entries carry new ids", () => {
    const ids = (changed: number, of: number) =>
      planRead({
        ...later,
        entries: Array.from({ length: of }, (_, i) =>
          entry(i + 1, i < changed ? { id: `new-${i + 1}` } : {}),
        ),
        known: Array.from({ length: of }, (_, i) => known(i + 1)),
      }).held;
    assert.equal(ids(1, 1), undefined, "one entry, one new id: an edit");
    assert.equal(ids(2, 4), undefined, "half is not most");
    assert.match(ids(3, 5) ?? "", /changed the id of 3 of its 5 entries/);
    assert.match(ids(2, 2) ?? "", /changed the id of 2 of its 2 entries/);
    // The first read (or one after the user accepted) takes every new id.
    const accepted = planRead({
      ...later,
      baseline: true,
      entries: [entry(1, { id: "new-1" }), entry(2, { id: "new-2" })],
      known: [known(1), known(2)],
    });
    assert.equal(accepted.held, undefined);
    assert.deepEqual(kinds(accepted), [
      ["rekeyed", "https://blog.example/1/"],
      ["rekeyed", "https://blog.example/2/"],
    ]);
  });

  it("records a known entry again when its link or content changed, and leaves an unchanged one alone", () => {
    const plan = planRead({
      ...later,
      entries: [
        entry(1, { contentHash: "edited" }),
        entry(2, { url: "https://blog.example/moved-2/" }),
        entry(3),
      ],
      known: [known(1), known(2), known(3)],
    });
    assert.deepEqual(kinds(plan), [
      ["changed", "https://blog.example/1/"],
      ["changed", "https://blog.example/moved-2/"],
    ]);
    const changed = plan.entries[1];
    assert.equal(changed?.kind === "changed" ? changed.known.postId : undefined, "102", "matched by its id");
  });

  it("matches an entry without an id by its link, and notes entries it cannot record or reads twice", () => {
    const plan = planRead({
      ...later,
      entries: [
        entry(1, { id: undefined, contentHash: "edited" }),
        entry(2, { url: undefined, title: undefined, key: "hash:abc" }),
        entry(3, { id: "3-again", url: "https://blog.example/1/", title: undefined }),
      ],
      known: [known(1, { entryId: null })],
    });
    assert.deepEqual(kinds(plan), [["changed", "https://blog.example/1/"]]);
    assert.deepEqual(plan.notes, [
      "An entry without a link (hash:abc) was not recorded: a post needs its URL",
      "https://blog.example/1/ repeats an entry read already (same link); it was read once",
    ]);
  });

  it("sends only entries with one of the feed's categories, whatever their case", () => {
    const withCategories = { ...routing, categories: ["IndieWeb"] };
    assert.deepEqual(targetsFor(entry(1, { categories: ["indieweb", "other"] }), withCategories), [
      MASTODON,
      BLUESKY,
    ]);
    assert.deepEqual(targetsFor(entry(1, { categories: ["other"] }), withCategories), []);
    assert.deepEqual(targetsFor(entry(1), withCategories), []);
  });

  it("at the first read sends the newest `backfill` dated entries, and records every entry oldest first", () => {
    const plan = planRead({
      ...later,
      routing: { ...routing, backfill: 2 },
      baseline: true,
      newestKnown: null,
      entries: [
        entry(2),
        entry(4),
        entry(1),
        entry(3, { published: undefined, updated: new Date(Date.UTC(2026, 0, 3)) }),
        entry(9, { published: undefined }),
      ],
      known: [],
    });
    assert.deepEqual(
      plan.entries.map((planned) => [planned.entry.id, planned.kind === "new" ? planned.targets.length : -1]),
      [
        ["1", 0],
        ["2", 0],
        ["3", 2],
        ["4", 2],
        ["9", 0],
      ],
      "the two newest dated entries (an updated date stands in) are sent; the undated one, dated now, is not",
    );
  });
});

describe("a read's edges", () => {
  const later = {
    routing,
    baseline: false,
    newestKnown: new Date(Date.UTC(2026, 0, 3)),
    now: Date.UTC(2026, 0, 4),
  };

  it("takes a site that stops giving ids: entries matched by link, nothing rekeyed, nothing held", () => {
    const plan = planRead({
      ...later,
      entries: [entry(3, { id: undefined }), entry(2, { id: undefined }), entry(1, { id: undefined })],
      known: [known(3), known(2), known(1)],
    });
    assert.equal(plan.held, undefined);
    assert.deepEqual(plan.entries, []);
  });

  it("says nothing of a known entry that lost its link", () => {
    const plan = planRead({ ...later, entries: [entry(1, { url: undefined })], known: [known(1)] });
    assert.deepEqual(plan, { entries: [], notes: [] });
  });

  it("at the first read never sends an undated entry, even when `backfill` asks for more", () => {
    const plan = planRead({
      ...later,
      routing: { ...routing, backfill: 5 },
      baseline: true,
      newestKnown: null,
      entries: [entry(1), entry(9, { published: undefined })],
      known: [],
    });
    assert.deepEqual(
      plan.entries.map((planned) => [planned.entry.id, planned.kind === "new" ? planned.targets.length : -1]),
      [
        ["1", 2],
        ["9", 0],
      ],
    );
  });

  it("quotes at most 60 characters of a date it cannot read", () => {
    const date = `${"x".repeat(60)}TAIL`;
    const plan = planRead({
      ...later,
      entries: [entry(5, { published: undefined, unreadableDate: date })],
      known: [],
    });
    assert.ok(
      plan.notes.some((note) => note.includes(`"${"x".repeat(60)}" could not be read`)),
      plan.notes.join("\n"),
    );
  });
});
