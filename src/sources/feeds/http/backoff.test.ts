import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { backoffMs, MAX_BACKOFF_SECONDS } from "./backoff.ts";

describe("a feed's backoff after failed fetches", () => {
  it("waits twice the feed's interval after the first failure, doubling after each further one", () => {
    assert.deepEqual(
      [1, 2, 3].map((failures) => backoffMs(failures, 300)),
      [600_000, 1_200_000, 2_400_000],
    );
  });

  it("counts from a minute at the least, for a feed read more often than that", () => {
    assert.equal(backoffMs(1, 10), 120_000);
  });

  it("takes no failure yet as the first", () => {
    assert.equal(backoffMs(0, 300), 600_000);
  });

  it("waits 6 hours at the most", () => {
    assert.equal(backoffMs(7, 300), MAX_BACKOFF_SECONDS * 1000);
    assert.equal(backoffMs(500, 3600), MAX_BACKOFF_SECONDS * 1000);
  });
});
