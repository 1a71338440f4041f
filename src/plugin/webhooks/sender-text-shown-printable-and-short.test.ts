// What a webhook's sender wrote goes into our answer and the log only printable and short.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { shown } from "./decision.ts";

describe("a sender's text, shown", () => {
  it("keeps text of up to 80 characters whole and cuts a longer one at 80, marked", () => {
    assert.equal(shown("x".repeat(80)), "x".repeat(80));
    assert.equal(shown("x".repeat(81)), `${"x".repeat(80)}…`);
    assert.equal(shown("abcdef", 5), "abcde…");
    assert.equal(shown("abcde", 5), "abcde");
  });

  it("makes control characters question marks", () => {
    assert.equal(shown("a\r\nb\u001b[31m\u007f"), "a??b?[31m?");
  });
});
