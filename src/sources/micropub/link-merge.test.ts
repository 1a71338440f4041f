import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { addedLinks, type LinkState, linkStateOf, mergeLinks } from "./link-merge.ts";

const mastodon = "https://mastodon.example/@me";
const bluesky = "https://bsky.example/me";
const copy = "https://mastodon.example/@me/1";
const other = "https://elsewhere.example/2";

const state = (syndication: string[], syndicateTo: string[]): LinkState => ({ syndication, syndicateTo });

describe("mergeLinks: the copies' links and the targets, merged three ways", () => {
  it("a copy made here: the link is added there and the target done is dropped (the property when none is left)", () => {
    const base = state([], [mastodon]);
    const merge = mergeLinks(base, base, state([copy], []));
    assert.deepEqual(merge.merged, state([copy], []));
    assert.equal(merge.localChanged, false);
    assert.deepEqual(merge.remoteUpdate, { add: { syndication: [copy] }, delete: ["mp-syndicate-to"] });
  });

  it("the targets still asked for replace the list; a link the remote has already is not sent again", () => {
    const base = state([other], [mastodon, bluesky]);
    const merge = mergeLinks(base, base, state([other, copy], [bluesky]));
    assert.deepEqual(merge.remoteUpdate, {
      add: { syndication: [copy] },
      replace: { "mp-syndicate-to": [bluesky] },
    });
  });

  it("a write-back lost (remote down, crash) is found again: the row holds a link the base lacks", () => {
    // The poll after the crash: base and remote still as before the copy.
    const before = state([], [mastodon]);
    const merge = mergeLinks(before, before, state([copy], []));
    assert.ok(merge.remoteUpdate, "the update is sent again");
  });

  it("what the user changes there reaches the row: a new target, a cancelled one, a removed link", () => {
    const base = state([other], [mastodon]);
    const merge = mergeLinks(base, state([], [bluesky]), base);
    assert.deepEqual(merge.merged, state([], [bluesky]));
    assert.equal(merge.localChanged, true);
    assert.equal(merge.remoteUpdate, undefined);
  });

  it("a link removed there stays removed, even while the row still holds it", () => {
    const base = state([copy], []);
    const merge = mergeLinks(base, state([], []), state([copy], []));
    assert.deepEqual(merge.merged.syndication, []);
    assert.equal(merge.remoteUpdate, undefined);
  });

  it("a link removed here replaces the whole list there", () => {
    const base = state([copy, other], []);
    const merge = mergeLinks(base, base, state([other], []));
    assert.deepEqual(merge.remoteUpdate, { replace: { syndication: [other] } });
  });

  it("without a base the remote is the base: the row's extra links are written back", () => {
    const merge = mergeLinks(undefined, state([], [mastodon]), state([copy], []));
    assert.deepEqual(merge.merged, state([copy], []));
    assert.deepEqual(merge.remoteUpdate, { add: { syndication: [copy] }, delete: ["mp-syndicate-to"] });
  });

  it("sides that agree need nothing", () => {
    const same = state([copy], [bluesky]);
    const merge = mergeLinks(same, same, state([copy], [bluesky]));
    assert.equal(merge.remoteUpdate, undefined);
    assert.equal(merge.localChanged, false);
  });
});

describe("linkStateOf", () => {
  it("reads one value or an array, drops duplicates and anything but strings", () => {
    assert.deepEqual(
      linkStateOf({ syndication: copy, "mp-syndicate-to": [mastodon, mastodon, 3] }),
      state([copy], [mastodon]),
    );
    assert.deepEqual(linkStateOf({}), state([], []));
  });
});

describe("addedLinks: a feed's site takes the copies' links, one way", () => {
  it("a new copy's link is added there, and only the link (the site names no targets)", () => {
    const merge = addedLinks(undefined, state([other], []), state([copy], [mastodon]));
    assert.deepEqual(merge.remoteUpdate, { add: { syndication: [copy] } });
    assert.equal(merge.localChanged, false);
    assert.deepEqual(merge.merged, state([copy], []));
  });

  it("a link the site holds already, or had from here once, is never sent again", () => {
    assert.equal(addedLinks(undefined, state([copy], []), state([copy], [])).remoteUpdate, undefined);
    // The user removed it there after it was agreed: it stays removed.
    assert.equal(addedLinks(state([copy], []), state([], []), state([copy], [])).remoteUpdate, undefined);
  });

  it("a write-back lost (site down, crash) is owed still: the agreed links lack it", () => {
    const merge = addedLinks(state([other], []), state([other], []), state([other, copy], []));
    assert.deepEqual(merge.remoteUpdate, { add: { syndication: [copy] } });
    assert.deepEqual(merge.merged, state([other, copy], []));
  });
});
