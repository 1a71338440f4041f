// The tests' hang guard (test/helpers/eventually.ts): 120 s by default, shorter where CI's
// generated-mutant part asks for it (decision 0083), and a mistaken value named with what to write.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { hangGuardMs, until } from "./eventually.ts";

describe("the tests' hang guard", () => {
  it("is 120 s when POSSEKIT_TEST_HANG_GUARD_MS is unset or empty", () => {
    assert.equal(hangGuardMs({}), 120_000);
    assert.equal(hangGuardMs({ POSSEKIT_TEST_HANG_GUARD_MS: "" }), 120_000);
  });

  it("takes the milliseconds POSSEKIT_TEST_HANG_GUARD_MS gives", () => {
    assert.equal(hangGuardMs({ POSSEKIT_TEST_HANG_GUARD_MS: "30000" }), 30_000);
    assert.equal(hangGuardMs({ POSSEKIT_TEST_HANG_GUARD_MS: "1000" }), 1000);
  });

  it("refuses a value that is not a whole number of at least 1000 ms, naming the variable", () => {
    for (const wrong of ["30s", "999", "-5", "2.5e3.1", "1500.5"])
      assert.throws(
        () => hangGuardMs({ POSSEKIT_TEST_HANG_GUARD_MS: wrong }),
        new RegExp(`^Error: POSSEKIT_TEST_HANG_GUARD_MS=${wrong.replace(".", "\\.")}: write a whole number`),
      );
  });

  it("is what until waits by default, read at each call", { timeout: 60_000 }, async () => {
    // Gives up after the 1 s the variable sets, not 120 s: under the slip the test's own 60 s fails it.
    const before = process.env.POSSEKIT_TEST_HANG_GUARD_MS;
    process.env.POSSEKIT_TEST_HANG_GUARD_MS = "1000";
    try {
      await assert.rejects(
        until("the never-true holds", () => false),
        /Timed out waiting until the never-true holds/,
      );
    } finally {
      if (before === undefined) delete process.env.POSSEKIT_TEST_HANG_GUARD_MS;
      else process.env.POSSEKIT_TEST_HANG_GUARD_MS = before;
    }
  });
});
