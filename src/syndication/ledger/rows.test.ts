// The ledger's rows as the core sees them: every column mapped to its own field (a slip would show
// the page another column's value, or lose a copy's thread and with it the copy's edits), a removed
// copy told apart from a row read without that column, and errors kept to one clipped line.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type AttemptRow,
  clip,
  freshKey,
  MAX_ERROR_LENGTH,
  type OperationRow,
  type TargetRow,
  toAttempt,
  toEntry,
  toOperation,
} from "./rows.ts";

const at = (minute: number) => new Date(Date.UTC(2024, 0, 1, 0, minute));

const targetRow: TargetRow = {
  post_id: "7",
  target_uid: "https://one.example/@me",
  state: "failed",
  url: "https://one.example/@me/1",
  attempts: 3,
  last_error: "One: 503",
  permanent: true,
  idempotency_key: "key-7",
  next_attempt_at: at(1),
  written_back: true,
  checkpoint: "half",
  last_status: 503,
  claimed_by: "instance/ab12",
  claimed_at: at(2),
  created_at: at(3),
  updated_at: at(4),
  digest: "digest-7",
  thread: JSON.stringify([{ id: "1", url: "https://one.example/@me/1" }]),
};

describe("the ledger's rows as the core sees them", () => {
  it("a target's row: each column in its own field, its thread read from text or json", () => {
    const expected = {
      postId: "7",
      targetUid: "https://one.example/@me",
      state: "failed",
      url: "https://one.example/@me/1",
      attempts: 3,
      lastError: "One: 503",
      permanent: true,
      idempotencyKey: "key-7",
      nextAttemptAt: at(1),
      writtenBack: true,
      checkpoint: "half",
      lastStatus: 503,
      claimedBy: "instance/ab12",
      claimedAt: at(2),
      createdAt: at(3),
      updatedAt: at(4),
      digest: "digest-7",
      thread: [{ id: "1", url: "https://one.example/@me/1" }],
    };
    assert.deepEqual(toEntry(targetRow), expected);
    assert.deepEqual(
      toEntry({ ...targetRow, thread: [{ id: "1", url: "https://one.example/@me/1" }] }),
      expected,
    );
  });

  it("no thread, or one that cannot be read, is null", () => {
    assert.equal(toEntry({ ...targetRow, thread: null }).thread, null);
    assert.equal(toEntry({ ...targetRow, thread: "{not json" }).thread, null);
  });

  it("removedAt only for the reads that join the removed copies: a date, or null when not removed", () => {
    assert.equal("removedAt" in toEntry(targetRow), false);
    assert.deepEqual(toEntry({ ...targetRow, removed_at: null }).removedAt, null);
    assert.deepEqual(toEntry({ ...targetRow, removed_at: at(5) }).removedAt, at(5));
    // PGlite's json and some drivers give the timestamp as text.
    assert.deepEqual(toEntry({ ...targetRow, removed_at: at(5).toISOString() }).removedAt, at(5));
  });

  it("a follow-up's row: each column in its own field", () => {
    const row: OperationRow = {
      post_id: "8",
      target_uid: "https://two.example/@me",
      operation: "update",
      state: "failed",
      url: "https://two.example/@me/2",
      digest: "digest-8",
      replace: true,
      attempts: 2,
      last_error: "Two: 500",
      permanent: true,
      last_status: 500,
      idempotency_key: "key-8",
      next_attempt_at: at(6),
      created_at: at(7),
      updated_at: at(8),
    };
    assert.deepEqual(toOperation(row), {
      postId: "8",
      targetUid: "https://two.example/@me",
      operation: "update",
      state: "failed",
      url: "https://two.example/@me/2",
      digest: "digest-8",
      replace: true,
      attempts: 2,
      lastError: "Two: 500",
      permanent: true,
      lastStatus: 500,
      idempotencyKey: "key-8",
      nextAttemptAt: at(6),
      createdAt: at(7),
      updatedAt: at(8),
    });
  });

  it("an attempt's row: each column in its own field, what it sent read back or null", () => {
    const sent = { text: "Hello", photos: [], permalink: "text", card: null, action: null } as const;
    const row: AttemptRow = {
      id: "9",
      post_id: "7",
      target_uid: "https://one.example/@me",
      run_id: "3",
      trigger: "batch",
      started_at: at(9),
      finished_at: at(10),
      outcome: "failed",
      url: null,
      error: "One: 503",
      own_text: "My words",
      operation: "create",
      sent: JSON.stringify(sent),
    };
    assert.deepEqual(toAttempt(row), {
      id: "9",
      postId: "7",
      targetUid: "https://one.example/@me",
      runId: "3",
      trigger: "batch",
      startedAt: at(9),
      finishedAt: at(10),
      outcome: "failed",
      url: null,
      error: "One: 503",
      ownText: "My words",
      operation: "create",
      sent,
    });
    assert.equal(toAttempt({ ...row, sent: null }).sent, null);
  });

  it("each fresh key is new: 32 hexadecimal digits", () => {
    const keys = new Set(Array.from({ length: 20 }, freshKey));
    assert.equal(keys.size, 20);
    for (const key of keys) assert.match(key, /^[0-9a-f]{32}$/);
  });
});

describe("a target's error as stored", () => {
  it("control characters become one space: no line of a log or event stream broken", () => {
    assert.equal(clip("One:\r\n\u001b[31mrefused\u0000\u007f\u009f."), "One: [31mrefused .");
    assert.equal(clip("tab\there"), "tab here");
  });

  it("printable text, accents and emoji included, is kept as it is", () => {
    assert.equal(
      clip("Mastodon: 422 Le texte est trop long — 🙂 ~"),
      "Mastodon: 422 Le texte est trop long — 🙂 ~",
    );
  });

  it("clipped to MAX_ERROR_LENGTH with an ellipsis, and not before", () => {
    const exact = "x".repeat(MAX_ERROR_LENGTH);
    assert.equal(clip(exact), exact);
    const long = clip(`${exact}y`);
    assert.equal(long.length, MAX_ERROR_LENGTH);
    assert.equal(long, `${"x".repeat(MAX_ERROR_LENGTH - 1)}…`);
  });
});
