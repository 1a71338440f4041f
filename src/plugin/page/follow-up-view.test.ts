// Decision 0060: an edit of a copy on a target that cannot change photos says so on the post's page
// when the post's photos are no longer those the copy holds; Mastodon (updatesPhotos) and a target
// whose copy holds the same photos say nothing, and a target with no edits says "kept" its own way.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SyndicatorPlugin } from "../../contract/plugin.ts";
import type { OperationEntry } from "../../syndication/types.ts";
import { followUpView } from "./follow-up-view.ts";

const target = (uid: string, extra: Partial<SyndicatorPlugin>): SyndicatorPlugin =>
  ({
    info: { uid, name: uid },
    syndicate: () => Promise.resolve(`${uid}/copy`),
    ...extra,
  }) as SyndicatorPlugin;

const entry = (targetUid: string, operation: OperationEntry["operation"] = "update"): OperationEntry => ({
  postId: "1",
  targetUid,
  operation,
  state: "done",
  url: `${targetUid}/copy`,
  digest: null,
  replace: false,
  attempts: 1,
  lastError: null,
  permanent: false,
  lastStatus: null,
  idempotencyKey: "k",
  nextAttemptAt: null,
  createdAt: new Date(0),
  updatedAt: new Date(0),
});

describe("a follow-up as the post's page shows it", () => {
  const update = () => Promise.resolve();
  const syndicators = [
    target("text-only", { update }),
    target("mastodon", { update, updatesPhotos: true }),
    target("no-edits", {}),
  ];

  it("says a copy keeps its photos when its target edits text only and the photos changed", () => {
    assert.equal(followUpView(entry("text-only"), syndicators, () => true).photosKept, true);
    assert.equal(followUpView(entry("text-only"), syndicators, () => false).photosKept, false);
    assert.equal(followUpView(entry("text-only", "delete"), syndicators, () => true).photosKept, false);
  });

  it("says nothing of photos for a target whose edits change them, or that has no edits", () => {
    assert.equal(followUpView(entry("mastodon"), syndicators, () => true).photosKept, false);
    assert.equal(followUpView(entry("no-edits"), syndicators, () => true).photosKept, false);
  });
});
