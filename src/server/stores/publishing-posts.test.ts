import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { retryDelayMs } from "./publishing-posts.ts";

describe("retryDelayMs: a change the content store refused", () => {
  it("is tried again after 30 s, then twice as long each time, at most an hour", () => {
    assert.deepEqual(
      [1, 2, 3, 7, 8, 50].map(retryDelayMs),
      [30_000, 60_000, 120_000, 1_920_000, 3_600_000, 3_600_000],
    );
  });
});
