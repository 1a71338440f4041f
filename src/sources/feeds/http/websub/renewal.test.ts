import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MIN_RENEWAL_DELAY_MS, renewalRetryTime, renewalTime } from "./renewal.ts";

describe("WebSub renewal times", () => {
  it("renews a long lease a tenth before it ends, a short one at half", () => {
    assert.equal(renewalTime(0, 864_000), 777_600_000);
    assert.equal(renewalTime(1_000, 3600), 1_000 + 3_240_000);
    assert.equal(renewalTime(0, 60), 30_000);
  });

  it("never renews sooner than the floor, whatever lease the hub grants", () => {
    for (const lease of [1, 2, 10, 29])
      assert.equal(renewalTime(5, lease), 5 + MIN_RENEWAL_DELAY_MS, `${lease} s`);
  });

  it("retries a failed renewal while the lease still runs, and not in a loop", () => {
    assert.equal(renewalRetryTime(0, 60_000, 900_000), 30_000);
    assert.equal(renewalRetryTime(0, 86_400_000, 900_000), 900_000);
    assert.equal(renewalRetryTime(0, 1_000, 900_000), MIN_RENEWAL_DELAY_MS);
    assert.equal(renewalRetryTime(0, null, 900_000), 900_000);
  });
});
