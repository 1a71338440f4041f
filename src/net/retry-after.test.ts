import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { retryAfterDelayMs } from "./retry-after.ts";

const now = Date.parse("2026-11-23T14:00:00.250Z");

describe("retryAfterDelayMs", () => {
  it("reads a delay in seconds, spaces around it allowed", () => {
    assert.equal(retryAfterDelayMs("120", now), 120_000);
    assert.equal(retryAfterDelayMs(" 0 ", now), 0);
    assert.equal(retryAfterDelayMs("1.5", now), 1_500);
    assert.equal(retryAfterDelayMs("1.25", now), 1_250);
  });

  it("reads an HTTP date, and an ISO time, as the time left until it, to the millisecond", () => {
    assert.equal(retryAfterDelayMs("Mon, 23 Nov 2026 14:05:00 GMT", now), 299_750);
    assert.equal(retryAfterDelayMs("2026-11-23T14:05:00.000000Z", now), 299_750);
    assert.equal(retryAfterDelayMs("2026-11-23T15:05:00+01:00", now), 299_750);
  });

  it("takes a date already past as no wait, never a negative one", () => {
    assert.equal(retryAfterDelayMs("Mon, 23 Nov 2026 13:00:00 GMT", now), 0);
  });

  it("is undefined when absent, blank or unreadable, a negative number included", () => {
    for (const value of [null, undefined, "", "  ", "soon", "-5", "1e3", "120abc"]) {
      assert.equal(retryAfterDelayMs(value, now), undefined, JSON.stringify(value));
    }
  });
});
