import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { secretsEqual } from "./constant-time.ts";

describe("secretsEqual", () => {
  it("is true for the same secret only, whatever the lengths", () => {
    assert.equal(secretsEqual("csrf-token-value", "csrf-token-value"), true);
    assert.equal(secretsEqual("csrf-token-value", "csrf-token-valuE"), false);
    assert.equal(secretsEqual("csrf-token-value", "csrf-token-value-and-more"), false);
    assert.equal(secretsEqual("", "csrf-token-value"), false);
    assert.equal(secretsEqual("", ""), true);
  });
});
