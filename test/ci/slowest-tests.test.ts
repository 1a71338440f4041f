// The slowest test files CI prints after the parts' times (decision 0072, scripts/slowest-tests.mjs):
// read from the runner's TAP, one per top-level test (a file, as scripts/test.mjs groups them), its
// own duration and not one of its tests', slowest first across the parts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { slowestLines, topLevelDurations } from "../../scripts/slowest-tests.mjs";

/** The runner's TAP for one top-level suite holding one test, as scripts/test.mjs's groups print it. */
const suite = (name: string, ms: number, { failed = false, inner = 5 } = {}) =>
  [
    `# Subtest: ${name}`,
    "    # Subtest: a test inside",
    "    ok 1 - a test inside",
    "      ---",
    `      duration_ms: ${inner}`,
    "      ...",
    "    1..1",
    `${failed ? "not ok" : "ok"} 1 - ${name}`,
    "  ---",
    `  duration_ms: ${ms}`,
    "  type: 'suite'",
    "  ...",
  ].join("\n");

describe("the slowest test files from the parts' logs", () => {
  it("reads each top-level test's own duration in seconds, not its inner tests'", () => {
    const tap = [
      "TAP version 13",
      suite("test/a.test.ts", 1500, { inner: 99_000 }),
      suite("Listeners", 250),
    ].join("\n");
    assert.deepEqual(topLevelDurations(`${tap}\n1..2\n# tests 2\n# duration_ms 9999\n`), [
      { name: "test/a.test.ts", failed: false, seconds: 1.5 },
      { name: "Listeners", failed: false, seconds: 0.25 },
    ]);
  });

  it("lists the slowest first across every part, at most `top`, naming the part and a failure", () => {
    const logs = [
      {
        part: "test",
        tap: [suite("test/fast.test.ts", 2000), suite("test/slow.test.ts", 90_000)].join("\n"),
      },
      { part: "system", tap: suite("test/e2e/browser.test.ts", 120_500, { failed: true }) },
    ];
    assert.deepEqual(slowestLines(logs, 2), [
      "  120.5 s  system    test/e2e/browser.test.ts (failed)",
      "   90.0 s  test      test/slow.test.ts",
    ]);
    assert.equal(slowestLines(logs).length, 3);
  });
});
