// What a post's send came to, and how a run counts it: a slip shows a post still lacking a copy as
// done (the page's "nothing left" while a copy waits), or a success as needing attention.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RunSummary, TargetResult } from "../types.ts";
import { countInto, emptySummary, needsAttention, postStatus } from "./post-result.ts";

const target = (status: TargetResult["status"], extra: Partial<TargetResult> = {}): TargetResult => ({
  uid: `https://${status}.example/@me`,
  name: status,
  status,
  ...extra,
});
const sent = target("syndicated");
const had = target("already_syndicated");
const failed = target("failed");
const waiting = target("skipped");
const unconfigured = target("skipped", { unconfigured: true });

describe("a post's status after a send", () => {
  it("syndicated: sent now, and no target lacks it", () => {
    assert.equal(postStatus([sent]), "syndicated");
    assert.equal(postStatus([sent, had]), "syndicated");
    assert.equal(
      postStatus([sent, unconfigured]),
      "syndicated",
      "a target no longer configured is not waited for",
    );
  });

  it("partial: sent now to some, while another failed or waits", () => {
    assert.equal(postStatus([sent, failed]), "partial");
    assert.equal(postStatus([sent, waiting]), "partial");
    assert.equal(postStatus([failed, sent, had]), "partial");
  });

  it("failed: nothing sent now and one failed, whatever the others", () => {
    assert.equal(postStatus([failed]), "failed");
    assert.equal(postStatus([had, failed, waiting]), "failed");
  });

  it("unchanged: nothing sent now and nothing failed", () => {
    assert.equal(postStatus([]), "unchanged");
    assert.equal(postStatus([had]), "unchanged");
    assert.equal(postStatus([waiting, unconfigured]), "unchanged");
  });
});

describe("a run's summary", () => {
  const counted = (...results: Parameters<typeof countInto>[1][]): RunSummary => {
    const summary = emptySummary();
    for (const result of results) countInto(summary, result);
    return summary;
  };

  it("starts at zero everywhere, with no follow-ups", () => {
    assert.deepEqual(emptySummary(), { posts: 0, syndicated: 0, partial: 0, failed: 0, skipped: 0 });
  });

  it("each post counted once, under its status", () => {
    assert.deepEqual(
      counted(
        { status: "syndicated", targets: [sent] },
        { status: "partial", targets: [sent, failed] },
        { status: "partial", targets: [sent, waiting] },
        { status: "failed", targets: [failed] },
      ),
      { posts: 4, syndicated: 1, partial: 2, failed: 1, skipped: 0 },
    );
  });

  it("an unchanged post is skipped when a target still lacks it, only a post when every target has it", () => {
    assert.deepEqual(
      counted({ status: "unchanged", targets: [had, waiting] }, { status: "unchanged", targets: [had] }),
      { posts: 2, syndicated: 0, partial: 0, failed: 0, skipped: 1 },
    );
  });

  it("copies that followed their post are counted apart; a follow-up that failed counts as failed", () => {
    assert.deepEqual(
      counted(
        { status: "syndicated", targets: [sent], followUp: true },
        { status: "syndicated", targets: [sent], followUp: true },
        { status: "failed", targets: [failed], followUp: true },
        { status: "syndicated", targets: [sent] },
      ),
      { posts: 4, syndicated: 1, partial: 0, failed: 1, skipped: 0, followed: 2 },
    );
  });

  it("needs attention when anything failed, is partial or waits; never for successes alone", () => {
    const none = emptySummary();
    assert.equal(needsAttention({ ...none, posts: 3, syndicated: 2, followed: 1 }), false);
    assert.equal(needsAttention({ ...none, failed: 1 }), true);
    assert.equal(needsAttention({ ...none, partial: 1 }), true);
    assert.equal(needsAttention({ ...none, skipped: 1 }), true);
  });
});
