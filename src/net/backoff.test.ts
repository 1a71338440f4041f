import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { backoffMs } from "./backoff.ts";

const rule = { baseMs: 30_000, maxMs: 3_600_000 };

describe("backoffMs", () => {
  it("doubles the base after each failure", () => {
    assert.deepEqual(
      [0, 1, 2, 3].map((doublings) => backoffMs(rule, doublings)),
      [30_000, 60_000, 120_000, 240_000],
    );
  });

  it("never waits longer than the longest wait, however many failures", () => {
    assert.equal(backoffMs(rule, 7), 3_600_000);
    assert.equal(backoffMs(rule, 10_000), 3_600_000);
    assert.equal(backoffMs({ baseMs: 1, maxMs: Number.MAX_VALUE }, 10_000), 2 ** 40);
  });

  it("takes a negative count as no doubling", () => {
    assert.equal(backoffMs(rule, -1), 30_000);
  });
});
