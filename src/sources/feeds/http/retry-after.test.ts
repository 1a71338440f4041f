import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_RETRY_AFTER_SECONDS, MIN_RETRY_AFTER_SECONDS, retryAfterMs } from "./retry-after.ts";

const now = Date.parse("2026-11-23T14:00:00Z");

describe("a feed site's Retry-After", () => {
  it("is waited for as asked between a minute and a day", () => {
    assert.equal(retryAfterMs("120", now), 120_000);
    assert.equal(retryAfterMs("Mon, 23 Nov 2026 14:45:00 GMT", now), 45 * 60_000);
  });

  it("waits a minute at the least, a 0 or a date past included", () => {
    assert.equal(retryAfterMs("0", now), MIN_RETRY_AFTER_SECONDS * 1000);
    assert.equal(retryAfterMs("Mon, 23 Nov 2026 13:00:00 GMT", now), MIN_RETRY_AFTER_SECONDS * 1000);
  });

  it("waits a day at the most", () => {
    assert.equal(retryAfterMs("999999", now), MAX_RETRY_AFTER_SECONDS * 1000);
  });

  it("is undefined when absent or unreadable", () => {
    assert.equal(retryAfterMs(null, now), undefined);
    assert.equal(retryAfterMs("later", now), undefined);
  });
});
