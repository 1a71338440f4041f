import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import { idempotencyKey } from "./idempotency-key.ts";

describe("the idempotency key", () => {
  it("is the first 32 hex characters of sha256(post URL, newline, uid), the same every time", () => {
    const key = idempotencyKey("https://example.org/notes/a/", "https://social.example/@me");
    const expected = createHash("sha256")
      .update("https://example.org/notes/a/\nhttps://social.example/@me")
      .digest("hex")
      .slice(0, 32);
    assert.equal(key, expected);
    assert.equal(key, idempotencyKey("https://example.org/notes/a/", "https://social.example/@me"));
  });

  it("differs between targets and between posts, including uids that share a prefix", () => {
    const keys = new Set([
      idempotencyKey("https://example.org/notes/a/", "https://social.example/@me"),
      idempotencyKey("https://example.org/notes/a/", "https://social.example/@me2"),
      idempotencyKey("https://example.org/notes/b/", "https://social.example/@me"),
      idempotencyKey("https://example.org/notes/a", "/https://social.example/@me"),
    ]);
    assert.equal(keys.size, 4);
  });
});
