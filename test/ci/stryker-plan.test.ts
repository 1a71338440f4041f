// CI's generated mutants' part (decision 0069, scripts/stryker-plan.mjs): which files and lines it
// mutates, how a large change is capped by a seeded sample whose count is known before Stryker runs,
// which tests reach a file, and that a folder below its threshold fails the part while one at or
// above it passes.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import {
  changedLineRanges,
  folderOf,
  folderScores,
  gateVerdict,
  isMutable,
  type Mutant,
  mutantsIn,
  mutateEntries,
  plausibleScore,
  relativeImports,
  sampleMutants,
  scoreLine,
  seedOf,
  standingMutants,
  testsReaching,
} from "../../scripts/stryker-plan.mjs";

const FOLDERS = { "src/server": 70, "src/server/auth": 80, "src/net": 85 };

describe("which files and lines the part mutates", () => {
  it("takes the added and edited lines of each file from git diff -U0, and nothing of a removal", () => {
    const diff = [
      "diff --git a/src/net/retry.ts b/src/net/retry.ts",
      "index 1111111..2222222 100644",
      "--- a/src/net/retry.ts",
      "+++ b/src/net/retry.ts",
      "@@ -3 +3 @@ export function a() {",
      "-  return 1;",
      "+  return 2;",
      "@@ -10,0 +11,4 @@ export function b() {",
      "+x",
      "+y",
      "+z",
      "+w",
      "@@ -20,3 +24,0 @@ export function c() {",
      "-gone",
      "-gone",
      "-gone",
      "diff --git a/src/net/old-name.ts b/src/net/new-name.ts",
      "similarity index 90%",
      "rename from src/net/old-name.ts",
      "rename to src/net/new-name.ts",
      "--- a/src/net/old-name.ts",
      "+++ b/src/net/new-name.ts",
      "@@ -7,2 +7,2 @@",
      "-a",
      "-b",
      "+c",
      "+d",
      "diff --git a/src/net/deleted.ts b/src/net/deleted.ts",
      "deleted file mode 100644",
      "--- a/src/net/deleted.ts",
      "+++ /dev/null",
      "@@ -1,5 +0,0 @@",
      "-1",
      "diff --git a/src/net/only-removed.ts b/src/net/only-removed.ts",
      "--- a/src/net/only-removed.ts",
      "+++ b/src/net/only-removed.ts",
      "@@ -4,2 +3,0 @@",
      "-1",
      "-2",
    ].join("\n");
    const ranges = changedLineRanges(diff);
    assert.deepEqual(
      [...ranges],
      [
        [
          "src/net/retry.ts",
          [
            [3, 3],
            [11, 14],
          ],
        ],
        ["src/net/new-name.ts", [[7, 8]]],
      ],
    );
    assert.deepEqual(mutateEntries(ranges), [
      "src/net/retry.ts:3-3",
      "src/net/retry.ts:11-14",
      "src/net/new-name.ts:7-8",
    ]);
    assert.deepEqual(mutateEntries(new Map([["src/net/new.ts", "all"]])), ["src/net/new.ts"]);
  });

  it("mutates the TypeScript sources of the folders, each in its most precise folder, never tests", () => {
    assert.equal(folderOf("src/server/auth/tokens.ts", FOLDERS), "src/server/auth");
    assert.equal(folderOf("src/server/app.ts", FOLDERS), "src/server");
    assert.equal(folderOf("src/serverless.ts", FOLDERS), undefined);
    assert.equal(isMutable("src/net/safe-fetch.ts", FOLDERS), true);
    assert.equal(isMutable("src/net/safe-fetch.test.ts", FOLDERS), false);
    assert.equal(isMutable("src/net/types.d.ts", FOLDERS), false);
    assert.equal(isMutable("src/net/notes.md", FOLDERS), false);
    assert.equal(isMutable("src/syndication/runs.ts", FOLDERS), false);
  });
});

describe("the mutants of the changed lines, and the cap", () => {
  const dir = mkdtempSync(join(tmpdir(), "possekit-stryker-plan-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "limits.ts");
  writeFileSync(
    file,
    [
      "export function within(size: number, limit: number): boolean {",
      "  return size <= limit && size >= 0;",
      "}",
      'export const unit = (bytes: number) => (bytes > 1024 ? "KiB" : "B");',
      "export function clamp(value: number, low: number, high: number): number {",
      "  if (value < low) return low;",
      "  if (value > high) return high;",
      "  return value;",
      "}",
      "",
    ].join("\n"),
  );

  it("finds only the mutants whose code lies in the changed lines", async () => {
    const line2 = await mutantsIn(new Map([[file, [[2, 2]]]]));
    assert.ok(line2.length >= 5, `line 2 holds several mutants, found ${line2.length}`);
    assert.ok(line2.every((mutant) => mutant.line === 2 && mutant.endLine === 2));
    const whole = await mutantsIn(new Map([[file, "all"]]));
    assert.ok(whole.length > line2.length + 10);
    // A block that spans lines 5 to 9 is not within lines 6 and 7: only what lies inside them.
    const lines6to7 = await mutantsIn(new Map([[file, [[6, 7]]]]));
    assert.ok(lines6to7.length > 0 && lines6to7.every((m) => m.line >= 6 && m.endLine <= 7));
  });

  it("with no more mutants than the cap, takes them all and mutates the changed lines as they are", async () => {
    const whole = await mutantsIn(new Map([[file, "all"]]));
    const { chosen, mutate } = sampleMutants(whole, whole.length, 1);
    assert.equal(chosen.length, whole.length);
    assert.equal(mutate, null);
    assert.equal(sampleMutants(whole, undefined, 1).chosen.length, whole.length);
  });

  it("over the cap, takes at most the cap, the same for a seed, and Stryker's entries make exactly those", async () => {
    const whole = await mutantsIn(new Map([[file, "all"]]));
    const cap = 7;
    const first = sampleMutants(whole, cap, seedOf("398e722d16e4"));
    assert.ok(
      first.chosen.length <= cap && first.chosen.length >= cap - 2,
      `${first.chosen.length} of ${cap}`,
    );
    assert.ok(first.mutate && first.mutate.length > 0);
    // Reproducible: the same seed takes the same mutants, whatever order they came in.
    const again = sampleMutants([...whole].reverse(), cap, seedOf("398e722d16e4"));
    assert.deepEqual(again.mutate, first.mutate);
    assert.deepEqual(again.chosen, first.chosen);
    const other = sampleMutants(whole, cap, seedOf("another commit"));
    assert.notDeepEqual(other.mutate, first.mutate);
    // The places given to Stryker make exactly the chosen mutants, the ones nested inside too.
    const places = (first.mutate ?? []).map((entry) => {
      const [line = 0, column = 0, endLine = 0, endColumn = 0] =
        /:(\d+):(\d+)-(\d+):(\d+)$/.exec(entry)?.slice(1).map(Number) ?? [];
      return { line, column, endLine, endColumn };
    });
    const made = await mutantsIn(new Map([[file, places]]));
    const key = (m: Mutant) =>
      `${m.line}:${m.column}-${m.endLine}:${m.endColumn} ${m.mutator} ${m.replacement}`;
    assert.deepEqual(made.map(key).sort(), first.chosen.map(key).sort());
  });

  it("passes over a mutant whose code holds more mutants than the room left or a tenth of the cap", () => {
    const at = (
      line: number,
      column: number,
      endLine: number,
      endColumn: number,
      mutator: string,
    ): Mutant => ({
      file: "src/net/x.ts",
      line,
      column,
      endLine,
      endColumn,
      mutator,
      replacement: "{}",
    });
    // A block of lines 1 to 9 holding three mutants of its own: with room for 2, never taken.
    const mutants = [
      at(1, 0, 9, 1, "BlockStatement"),
      at(2, 2, 2, 10, "EqualityOperator"),
      at(3, 2, 3, 10, "EqualityOperator"),
      at(4, 2, 4, 10, "EqualityOperator"),
      at(12, 0, 12, 5, "StringLiteral"),
    ];
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const { chosen, mutate } = sampleMutants(mutants, 2, seed);
      assert.equal(chosen.length, 2);
      assert.ok(!chosen.some((m) => m.mutator === "BlockStatement"));
      assert.ok(!(mutate ?? []).includes("src/net/x.ts:1:0-9:1"));
    }
    // Room for 20, a place at most 2: pairs (a call and the argument inside it) and singles.
    const pairs = Array.from({ length: 10 }, (_, n) => [
      at(20 + n, 0, 20 + n, 30, "MethodExpression"),
      at(20 + n, 10, 20 + n, 20, "StringLiteral"),
    ]).flat();
    const singles = Array.from({ length: 10 }, (_, n) => at(40 + n, 0, 40 + n, 5, "BooleanLiteral"));
    for (let seed = 1; seed <= 20; seed++) {
      const { chosen } = sampleMutants([...pairs, ...singles], 20, seed);
      assert.ok(chosen.length <= 20 && chosen.length >= 19, `seed ${seed}: ${chosen.length}`);
    }
  });

  it("never fills the sample from one spot: a place holding more than a tenth of the cap (at least 4) is passed over", () => {
    const at = (line: number, endLine: number, mutator: string): Mutant => ({
      file: "src/net/y.ts",
      line,
      column: 0,
      endLine,
      endColumn: 40,
      mutator,
      replacement: "x",
    });
    // A function's body (lines 1–5) holding 4 more mutants, and 20 single ones elsewhere; cap 10.
    const body = [at(1, 5, "BlockStatement"), at(2, 2, "A"), at(3, 3, "B"), at(4, 4, "C"), at(5, 5, "D")];
    const elsewhere = Array.from({ length: 20 }, (_, n) => at(10 + n, 10 + n, "E"));
    for (let seed = 1; seed <= 20; seed++) {
      const { chosen, mutate } = sampleMutants([...body, ...elsewhere], 10, seed);
      assert.equal(chosen.length, 10);
      // The body's place brings at most 4 new mutants: some of those inside were taken on their own first.
      if (mutate?.includes("src/net/y.ts:1:0-5:40")) {
        const inside = [2, 3, 4, 5].filter((line) => mutate.includes(`src/net/y.ts:${line}:0-${line}:40`));
        assert.ok(inside.length > 0, `seed ${seed} took the body's 5 mutants at once`);
      }
    }
  });
});

describe("which tests reach a changed file", () => {
  const tests = new Map([
    ["test/a-send.test.ts", new Set(["src/syndication/runs/runs.ts"])],
    ["test/b-send.test.ts", new Set(["src/syndication/runs/runs.ts", "test/helpers/x.ts"])],
    ["src/net/retry.test.ts", new Set(["src/net/retry.ts"])],
    ["test/c-retry.test.ts", new Set(["src/net/retry.ts"])],
    ["test/d-retry.test.ts", new Set(["src/net/retry.ts"])],
  ]);
  const modules = new Map([
    ["src/syndication/runs/runs.ts", new Set(["src/syndication/runs/post-runner.ts"])],
    ["src/syndication/runs/post-runner.ts", new Set(["src/syndication/runs/call-syndicator.ts"])],
    ["src/syndication/runs/call-syndicator.ts", new Set<string>()],
    ["src/net/retry.ts", new Set<string>()],
    ["src/orphan.ts", new Set<string>()],
  ]);

  it("every test that imports it, unit tests first, at most maxDirect, saying how many were left out", () => {
    assert.deepEqual(testsReaching("src/net/retry.ts", tests, modules, { max: 1 }), {
      tests: ["src/net/retry.test.ts", "test/c-retry.test.ts", "test/d-retry.test.ts"],
      leftOut: 0,
    });
    assert.deepEqual(testsReaching("src/net/retry.ts", tests, modules, { maxDirect: 2 }), {
      tests: ["src/net/retry.test.ts", "test/c-retry.test.ts"],
      leftOut: 1,
    });
  });

  it("when none does, the tests of the nearest module that imports it, at most max", () => {
    const reach = (file: string, options?: { max?: number; depth?: number }) =>
      testsReaching(file, tests, modules, options);
    assert.deepEqual(reach("src/syndication/runs/call-syndicator.ts"), {
      tests: ["test/a-send.test.ts", "test/b-send.test.ts"],
      leftOut: 0,
    });
    assert.deepEqual(reach("src/syndication/runs/call-syndicator.ts", { max: 1 }), {
      tests: ["test/a-send.test.ts"],
      leftOut: 1,
    });
    assert.deepEqual(reach("src/syndication/runs/call-syndicator.ts", { depth: 1 }).tests, []);
    assert.deepEqual(reach("src/orphan.ts").tests, []);
  });

  it("reads what a module runs, not the types it imports", () => {
    const source = [
      'import type { Post } from "../contract/posts.ts";',
      'import { backoff } from "./backoff.ts";',
      'import {\n  a,\n  b,\n} from "../../net/retry.ts";',
      'export { c } from "./c.ts";',
      'import "./side-effect.ts";',
      'const later = await import("./later.ts");',
      'import { z } from "zod";',
    ].join("\n");
    assert.deepEqual(relativeImports("src/syndication/runs/x.ts", source).sort(), [
      "src/net/retry.ts",
      "src/syndication/runs/backoff.ts",
      "src/syndication/runs/c.ts",
      "src/syndication/runs/later.ts",
      "src/syndication/runs/side-effect.ts",
    ]);
  });
});

describe("each folder's score against its threshold", () => {
  const statuses = (counts: Record<string, number>) =>
    Object.entries(counts).flatMap(([status, count]) => Array.from({ length: count }, () => ({ status })));

  it("fails a folder below its threshold and passes one at or above it", () => {
    const report = {
      files: {
        // 4 detected of 5 valid: 80.0 %, at the threshold of src/server/auth.
        "src/server/auth/tokens.ts": {
          mutants: statuses({ Killed: 3, Timeout: 1, Survived: 1, CompileError: 4 }),
        },
        // 6 of 7 (85.7 %) against src/net's 85: above.
        "src/net/retry.ts": { mutants: statuses({ Killed: 6, NoCoverage: 1, Ignored: 3, RuntimeError: 2 }) },
        // 8 of 20 (40.0 %) against src/server's 70: below, even at the most this sample allows (58.1 %).
        "src/server/app.ts": { mutants: statuses({ Killed: 8, Survived: 12 }) },
      },
    };
    const scores = folderScores(report, FOLDERS);
    const [net, server, auth] = scores;
    assert.ok(net && server && auth);
    assert.deepEqual(
      scores.map(({ folder, killed, survived, noCoverage, ok }) => [
        folder,
        killed,
        survived,
        noCoverage,
        ok,
      ]),
      [
        ["src/net", 6, 0, 1, true],
        ["src/server", 8, 12, 0, false],
        ["src/server/auth", 4, 1, 0, true],
      ],
    );
    assert.equal(auth.score, 80);
    assert.match(
      scoreLine(server),
      /^src\/server\s+40\.0 % {2}\(killed 8, survived 12, no coverage 0; threshold 70 %; at most 58\.1 % by this sample; over executed code 40\.0 %\) BELOW$/,
    );
    assert.match(scoreLine(auth), /80\.0 % .* ok$/);
  });

  it("holds a folder to what its sample shows: a small sample allows more, a large one less", () => {
    const scoreOf = (counts: Record<string, number>) =>
      folderScores({ files: { "src/net/retry.ts": { mutants: statuses(counts) } } }, FOLDERS)[0];
    // src/net's threshold is 85. One survivor in five (80 %) may still be a folder at 85 % or more.
    assert.equal(scoreOf({ Killed: 4, Survived: 1 })?.ok, true);
    // Three in five cannot (at most 72.8 %).
    assert.equal(scoreOf({ Killed: 2, Survived: 3 })?.ok, false);
    // Over 100 mutants the allowance is narrow: 80 of 100 may still be 85 % (at most 85.75 %),
    // 78 of 100 cannot.
    assert.equal(scoreOf({ Killed: 80, Survived: 20 })?.ok, true);
    assert.equal(scoreOf({ Killed: 78, Survived: 22 })?.ok, false);
    assert.equal(scoreOf({ Killed: 5 })?.ok, true);
    // At its threshold exactly passes: every one of 5 detected against a threshold of 100.
    const exact = folderScores(
      { files: { "src/net/retry.ts": { mutants: statuses({ Killed: 5 }) } } },
      { "src/net": 100 },
    );
    assert.equal(exact[0]?.ok, true);
  });

  it("bounds the score from above by the one-sided 95 % Wilson interval, never under the score", () => {
    assert.equal(plausibleScore(0, 0), 100);
    assert.equal(plausibleScore(100, 100), 100);
    assert.equal(plausibleScore(3, 20).toFixed(1), "32.2");
    assert.equal(plausibleScore(4, 5).toFixed(1), "95.4");
    assert.equal(plausibleScore(0, 20).toFixed(1), "11.9");
    assert.equal(plausibleScore(80, 100).toFixed(2), "85.75");
    for (const valid of [1, 3, 10, 40, 200])
      for (let killed = 0; killed <= valid; killed += 1) {
        const bound = plausibleScore(killed, valid);
        assert.ok(bound >= (100 * killed) / valid && bound <= 100, `${killed} of ${valid}: ${bound}`);
      }
  });
});

describe("CI's gate (decision 0071): the part fails when a folder is below its threshold", () => {
  const mutants = (counts: Record<string, number>) =>
    Object.entries(counts).flatMap(([status, count]) =>
      Array.from({ length: count }, (_, n) => ({
        status,
        mutatorName: "ConditionalExpression",
        replacement: "true",
        location: { start: { line: 10 + n, column: 5 }, end: { line: 10 + n, column: 12 } },
      })),
    );
  const verdictOf = (files: Record<string, Record<string, number>>) =>
    gateVerdict(
      folderScores(
        {
          files: Object.fromEntries(
            Object.entries(files).map(([file, counts]) => [file, { mutants: mutants(counts) }]),
          ),
        },
        FOLDERS,
      ),
    );

  it("passes a folder its sample allows at its threshold and fails one the sample shows below it", () => {
    // src/server/auth's threshold is 80: 3 of 4 (75 %) may be a folder at 94.2 %; 10 of 20 cannot
    // reach 80 (at most 67.3 %).
    assert.deepEqual(verdictOf({ "src/server/auth/tokens.ts": { Killed: 3, Survived: 1 } }), {
      exit: 0,
      line: "Gate: passed, every folder at or above its threshold (1 folder(s))",
    });
    assert.deepEqual(verdictOf({ "src/server/auth/tokens.ts": { Killed: 10, Survived: 10 } }), {
      exit: 1,
      line: "Gate: FAILED, below the threshold: src/server/auth 50.0 % (at most 67.3 %) < 80 %",
    });
  });

  it("prints a reported-only folder below its threshold with its reason, and fails on the others alone", () => {
    const scores = folderScores(
      {
        files: {
          "src/server/app.ts": { mutants: mutants({ Killed: 1, Survived: 19 }) },
          "src/net/retry.ts": { mutants: mutants({ Killed: 20 }) },
        },
      },
      FOLDERS,
    );
    const why = { "src/server": "its tests are beyond the part's bound" };
    assert.deepEqual(gateVerdict(scores, why), {
      exit: 0,
      line: "Gate: passed, every folder at or above its threshold (2 folder(s)); src/server 5.0 % < 70 % (reported, not gated: its tests are beyond the part's bound)",
    });
    // The same run without the exemption (a run of whole files by hand) fails on it.
    assert.equal(gateVerdict(scores).exit, 1);
    // An exempt folder does not hide another that is low.
    const both = folderScores(
      {
        files: {
          "src/server/app.ts": { mutants: mutants({ Killed: 1, Survived: 19 }) },
          "src/net/retry.ts": { mutants: mutants({ Killed: 2, Survived: 18 }) },
        },
      },
      FOLDERS,
    );
    assert.equal(gateVerdict(both, why).exit, 1);
    assert.match(
      gateVerdict(both, why).line,
      /^Gate: FAILED, below the threshold: src\/net 10\.0 % \(at most/,
    );
  });

  it("fails when one folder of several is low, whatever the others score", () => {
    const verdict = verdictOf({
      "src/net/retry.ts": { Killed: 20 },
      "src/server/auth/tokens.ts": { Killed: 10 },
      // src/server: 5 of 20, against 70 (at most 43.2 %).
      "src/server/app.ts": { Killed: 5, NoCoverage: 15 },
    });
    assert.equal(verdict.exit, 1);
    assert.equal(
      verdict.line,
      "Gate: FAILED, below the threshold: src/server 25.0 % (at most 43.2 %) < 70 %",
    );
  });

  it("counts a mutant no test executes against its folder: over executed code alone it would pass", () => {
    const [score] = folderScores(
      { files: { "src/net/retry.ts": { mutants: mutants({ Killed: 5, NoCoverage: 5 }) } } },
      FOLDERS,
    );
    assert.ok(score);
    assert.equal(score.covered, 100);
    assert.equal(score.score, 50);
    assert.match(scoreLine(score), /50\.0 % .*over executed code 100\.0 %\) BELOW$/);
    assert.equal(gateVerdict([score]).exit, 1);
  });

  it("names every mutant left standing by file and line, not covered ones included", () => {
    const report = {
      files: {
        "src/net/retry.ts": { mutants: mutants({ Killed: 1, NoCoverage: 1 }) },
        "src/net/a.ts": { mutants: mutants({ Survived: 1, Timeout: 1 }) },
      },
    };
    assert.deepEqual(standingMutants(report), [
      "survived    src/net/a.ts:10:5 ConditionalExpression → true",
      "no coverage src/net/retry.ts:10:5 ConditionalExpression → true",
    ]);
  });

  it("CI's stryker part ends with the script's exit status (a gate, not a report)", () => {
    // The part's commands as .ci/run has them, with the script stood in for by a shell function.
    const run = readFileSync(join(import.meta.dirname, "..", "..", ".ci", "run"), "utf8");
    const part = /\n {4}stryker\)\n([\s\S]*?)\n {6};;/.exec(run)?.[1];
    assert.ok(part, "the stryker part in .ci/run's run_part");
    for (const status of [0, 1, 2]) {
      const shell: { status: number | null; stdout: string; stderr: string } = spawnSync(
        "bash",
        [
          "-c",
          `set -euo pipefail\nstryker_args() { echo --lines; }\nnode() { return ${status}; }\npart() {\n${part}\n}\npart`,
        ],
        { encoding: "utf8" },
      );
      assert.equal(shell.status, status, `the script exits ${status}: ${shell.stdout}${shell.stderr}`);
    }
  });
});
