// What the page says of each target of a post, from the ledger and the post: the kinds the reader
// must tell apart (retried on the next run, waiting for its next try, refused for good, unknown, not
// configured), in a stable order, and never a link that is not http(s).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SyndicatorPlugin } from "../../contract/plugin.ts";
import type { Post } from "../../contract/posts.ts";
import type { LedgerEntry } from "../../syndication/types.ts";
import { targetViews } from "./target-view.ts";

const NOW = new Date("2026-01-10T12:00:00Z");
const A = "https://a.example/@me";
const B = "https://b.example/@me";

function target(uid: string, name: string): SyndicatorPlugin {
  return {
    id: name.toLowerCase(),
    name,
    meta: {},
    info: { uid, name, service: { name: "Mastodon", url: `${new URL(uid).origin}/` } },
    init: () => {},
    syndicate: async () => `${uid}/1`,
  };
}

function post(targets: string[]): Post {
  const at = new Date("2026-01-01T00:00:00Z");
  return {
    id: "7",
    url: "https://example.org/notes/a/",
    properties: { type: "entry", content: "A note", "mp-syndicate-to": targets },
    status: "published",
    published: at,
    created: at,
    updated: at,
    deleted: false,
  };
}

function entry(uid: string, fields: Partial<LedgerEntry>): LedgerEntry {
  return {
    postId: "7",
    targetUid: uid,
    state: "pending",
    url: null,
    attempts: 1,
    lastError: null,
    permanent: false,
    idempotencyKey: "key",
    nextAttemptAt: null,
    writtenBack: false,
    checkpoint: null,
    lastStatus: null,
    claimedBy: null,
    claimedAt: null,
    updatedAt: NOW,
    createdAt: NOW,
    digest: null,
    thread: null,
    ...fields,
  };
}

const configured = [target(A, "A"), target(B, "B")];

describe("the state the page shows for each target", () => {
  it("tells a failure retried on the next run from one waiting for its next try and one refused for good", () => {
    const later = new Date(NOW.getTime() + 60_000);
    const kinds = (fields: Partial<LedgerEntry>) =>
      targetViews(
        post([A]),
        [entry(A, { state: "failed", lastError: "503", ...fields })],
        configured,
        NOW,
      )[0];
    assert.equal(kinds({})?.kind, "failed");
    assert.equal(kinds({ nextAttemptAt: new Date(NOW.getTime() - 1) })?.kind, "failed");
    const waiting = kinds({ nextAttemptAt: later });
    assert.equal(waiting?.kind, "backoff");
    assert.deepEqual(waiting?.nextAttemptAt, later);
    assert.equal(waiting?.error, "503");
    assert.equal(kinds({ permanent: true })?.kind, "refused");
    const limited = kinds({ nextAttemptAt: later, lastStatus: 429 });
    assert.equal(limited?.kind, "ratelimited", "the service's own wait, told apart from a backoff");
    assert.deepEqual(limited?.nextAttemptAt, later);
    assert.equal(kinds({ nextAttemptAt: new Date(NOW.getTime() - 1), lastStatus: 429 })?.kind, "failed");
  });

  it("shows targets nobody has tried as pending, and uids without a configured target as such", () => {
    const views = targetViews(post([B, "https://gone.example/@me", A]), [], configured, NOW);
    assert.deepEqual(
      views.map((view) => [view.name, view.kind]),
      [
        ["A", "pending"],
        ["B", "pending"],
        ["https://gone.example/@me", "unconfigured"],
      ],
      "in the order the targets are configured, whatever the post's order",
    );
  });

  it("keeps a syndicated target that has left mp-syndicate-to, with the copy's link", () => {
    const views = targetViews(
      post([B]),
      [
        entry(A, { state: "syndicated", url: `${A}/42` }),
        entry(B, { state: "unknown", lastError: "unknown" }),
      ],
      configured,
      NOW,
    );
    assert.deepEqual(
      views.map((view) => [view.uid, view.kind, view.url]),
      [
        [A, "syndicated", `${A}/42`],
        [B, "unknown", null],
      ],
    );
  });

  it("never offers a copy's address as a link unless it is http(s)", () => {
    const views = targetViews(
      post([]),
      [entry(A, { state: "syndicated", url: "javascript:alert(1)" })],
      configured,
      NOW,
    );
    assert.equal(views[0]?.kind, "syndicated");
    assert.equal(views[0]?.url, null);
  });
});
