// The coverage index of CI's generated-mutant part (decision 0076, scripts/stryker-index.mjs): which
// lines a test file executes, as a real run under V8's coverage shows them; a line of the file now
// found in the version the index holds, through the diff; the tests the index names for a mutant; and
// the choice of the cheapest ones, a few a mutant, within the budget; and the probe for a line it
// cannot map (decision 0082).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import {
  cheapestTests,
  executedLines,
  guardingTests,
  indexedTests,
  lineMapFromDiff,
  lineMapOf,
  optionMistake,
  packIndex,
  probeCandidatesOf,
  rangesHold,
  rangesText,
  unmappedMutants,
  unpackIndex,
} from "../../scripts/stryker-index.mjs";
import { type Mutant, mutantsIn } from "../../scripts/stryker-plan.mjs";
import { mutantKey, probeTest, runUnderCoverage, unrunRanges } from "../../scripts/stryker-probe.mjs";

/** A mutant as the plan samples one, on one line of `file`: only where it stands matters here. */
function sampledMutant(file: string, line: number): Mutant {
  return {
    file,
    line,
    column: 2,
    endLine: line,
    endColumn: 9,
    mutator: "BooleanLiteral",
    replacement: "false",
  };
}

describe("the lines a test file executes, from a real run under V8's coverage", () => {
  const dir = mkdtempSync(join(tmpdir(), "possekit-stryker-index-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const limits = [
    "export function clamp(value: number, low: number, high: number): number {",
    "  if (value < low) {",
    "    return low;",
    "  }",
    "  return value > high ? high : value;",
    "}",
    "",
    "export function unit(bytes: number): string {",
    '  return bytes > 1024 ? "KiB" : "B";',
    "}",
    "",
  ].join("\n");
  writeFileSync(join(dir, "limits.ts"), limits);
  writeFileSync(join(dir, "uses-clamp.ts"), 'import { clamp } from "./limits.ts";\nclamp(5, 0, 10);\n');
  writeFileSync(
    join(dir, "imports-only.ts"),
    'import { unit } from "./limits.ts";\nconsole.log(typeof unit);\n',
  );

  const linesOf = async (test: string) => {
    const run = await runUnderCoverage(test, { root: dir });
    assert.ok(run, `${test} ran`);
    assert.ok(run.seconds > 0);
    return executedLines(
      limits,
      unrunRanges(run.dumps, ["limits.ts"], dir).map(({ unrun }) => unrun),
    );
  };

  it("counts the lines that ran, not a block or a function that never did, nor blank lines", async () => {
    // clamp(5, 0, 10): its if's block (lines 3 and 4's brace) never ran; unit()'s body (9, 10) never did,
    // its declaration's line (8) did, as the module was loaded.
    assert.deepEqual(await linesOf("uses-clamp.ts"), [1, 2, 5, 6, 8]);
    // Loaded, no function called: the declarations' lines only.
    assert.deepEqual(await linesOf("imports-only.ts"), [1, 8]);
  });

  it("agrees with the probe: the index's lines hold exactly the mutants the probe says ran", async () => {
    const mutants = await mutantsIn(new Map([[join(dir, "limits.ts"), "all"]]));
    const ran = await probeTest("uses-clamp.ts", mutants, { root: dir });
    assert.ok(ran);
    const lines = rangesText(await linesOf("uses-clamp.ts"));
    // Every mutant the probe saw run lies on a line the index holds; a line it lacks holds none that ran.
    for (const mutant of mutants as Mutant[]) {
      if (ran.has(mutantKey(mutant))) assert.ok(rangesHold(lines, mutant.line), `line ${mutant.line}`);
    }
    assert.ok(mutants.some((m: Mutant) => m.line === 9 && !ran.has(mutantKey(m))));
    assert.equal(rangesHold(lines, 9), false);
  });
});

describe("the index's form", () => {
  it("keeps lines as ranges, and tells whether they hold a line", () => {
    assert.equal(rangesText([1, 2, 3, 5, 7, 8]), "1-3,5,7-8");
    assert.equal(rangesText([]), "");
    assert.equal(rangesHold("1-3,5,7-8", 3), true);
    assert.equal(rangesHold("1-3,5,7-8", 4), false);
    assert.equal(rangesHold("1-3,5,7-8", 5), true);
    assert.equal(rangesHold("1-3,5,7-8", 9), false);
  });

  it("packs the tests that share a file's lines into one entry, and unpacks to the same index", () => {
    const index = {
      built: { commit: "abc", date: "2026-11-29" },
      tests: {
        "test/b.test.ts": { seconds: 3.5, blob: "b1" },
        "test/a.test.ts": { seconds: 12, blob: "a1" },
      },
      files: {
        "src/x.ts": { blob: "x1", lines: { "test/a.test.ts": "1-4", "test/b.test.ts": "1-4" } },
        "src/y.ts": { blob: "y1", lines: { "test/a.test.ts": "2,9-10" } },
      },
    };
    const packed = packIndex(index);
    assert.deepEqual(packed.tests, [
      ["test/a.test.ts", 12, "a1"],
      ["test/b.test.ts", 3.5, "b1"],
    ]);
    assert.deepEqual(packed.files["src/x.ts"], { blob: "x1", runs: { "1-4": [0, 1] } });
    assert.deepEqual(unpackIndex(JSON.parse(JSON.stringify(packed))), index);
  });
});

describe("a line of the file now, in the version the index holds", () => {
  // Indexed: lines 1–10. Now: line 3 edited, two lines added after old 6, old line 9 removed.
  const diff = [
    "@@ -3 +3 @@",
    "-old three",
    "+new three",
    "@@ -6,0 +7,2 @@",
    "+added one",
    "+added two",
    "@@ -9 +10,0 @@",
    "-old nine",
  ].join("\n");
  const map = lineMapFromDiff(diff);

  it("moves a line no hunk touches by the hunks above it", () => {
    assert.deepEqual(map(1), { lines: [1], all: false });
    assert.deepEqual(map(6), { lines: [6], all: false });
    assert.deepEqual(map(9), { lines: [7], all: false });
    assert.deepEqual(map(10), { lines: [8], all: false });
    // Below the removed line 9: one line more up.
    assert.deepEqual(map(11), { lines: [10], all: false });
  });

  it("takes an edited line for the lines its hunk replaced, an added one for both lines around it", () => {
    assert.deepEqual(map(3), { lines: [3], all: false });
    assert.deepEqual(map(7), { lines: [6, 7], all: true });
    assert.deepEqual(map(8), { lines: [6, 7], all: true });
  });

  it("reads the indexed version from the repository by its blob, and maps nothing it cannot read", () => {
    const repo = mkdtempSync(join(tmpdir(), "possekit-stryker-index-git-"));
    try {
      const git = (...args: string[]) => spawnSync("git", args, { cwd: repo, encoding: "utf8" });
      git("init", "-q");
      writeFileSync(join(repo, "a.ts"), "one\ntwo\nthree\n");
      const blob = git("hash-object", "-w", "a.ts").stdout.trim();
      assert.deepEqual(lineMapOf(repo, "a.ts", blob)?.(2), { lines: [2], all: false });
      writeFileSync(join(repo, "a.ts"), "zero\none\ntwo\nthree\n");
      assert.deepEqual(lineMapOf(repo, "a.ts", blob)?.(3), { lines: [2], all: false });
      assert.deepEqual(lineMapOf(repo, "a.ts", blob)?.(1), { lines: [1], all: true });
      assert.equal(lineMapOf(repo, "a.ts", "0123456789012345678901234567890123456789"), null);
      // An entry with no blob id, or one git would read as an option: unknown lines, not a crash.
      assert.equal(lineMapOf(repo, "a.ts", undefined), null);
      assert.equal(lineMapOf(repo, "a.ts", "--batch"), null);
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });
});

describe("the tests for each sampled mutant: the cheapest that execute its line", () => {
  const index = {
    tests: {
      "test/slow.test.ts": { seconds: 40, blob: "s" },
      "test/fast.test.ts": { seconds: 5, blob: "f" },
      "src/x.test.ts": { seconds: 1, blob: "u" },
    },
    files: {
      "src/x.ts": {
        blob: "x",
        lines: { "test/slow.test.ts": "1-20", "test/fast.test.ts": "1-10", "src/x.test.ts": "1-3,15" },
      },
    },
  };
  const same = () => (line: number) => ({ lines: [line], all: false });

  it("names the tests whose lines hold the mutant's, and none for a file the index lacks", () => {
    const found = indexedTests([sampledMutant("src/x.ts", 12), sampledMutant("src/y.ts", 1)], index, same);
    assert.deepEqual(found.get(mutantKey(sampledMutant("src/x.ts", 12))), ["test/slow.test.ts"]);
    assert.equal(found.has(mutantKey(sampledMutant("src/y.ts", 1))), false);
    // A line that no longer maps (the file's indexed version unreadable): the file is as unknown.
    assert.equal(indexedTests([sampledMutant("src/x.ts", 12)], index, () => null).size, 0);
    // An added line needs a test that ran both lines around it.
    const between = () => () => ({ lines: [10, 11], all: true });
    assert.deepEqual(
      indexedTests([sampledMutant("src/x.ts", 11)], index, between).get(
        mutantKey(sampledMutant("src/x.ts", 11)),
      ),
      ["test/slow.test.ts"],
    );
  });

  it("takes the cheapest tests first, perMutant a mutant, and a slow one only where nothing else runs the line", () => {
    const mutants = [
      sampledMutant("src/x.ts", 2),
      sampledMutant("src/x.ts", 8),
      sampledMutant("src/x.ts", 12),
    ];
    const found = indexedTests(mutants, index, same);
    const secondsOf = (test: string) => index.tests[test as keyof typeof index.tests].seconds;
    assert.deepEqual(cheapestTests(found, secondsOf, { perMutant: 1 }), {
      tests: ["src/x.test.ts", "test/fast.test.ts", "test/slow.test.ts"],
      seconds: 46,
      short: [],
      guarded: [],
    });
    // Two a mutant: line 2 gets the unit test and the fast one, line 8 the fast one and the slow one.
    assert.deepEqual(cheapestTests(found, secondsOf, { perMutant: 2 }).tests, [
      "src/x.test.ts",
      "test/fast.test.ts",
      "test/slow.test.ts",
    ]);
  });

  it("passes over a test the budget cannot take, and names the mutants left with none", () => {
    const mutants = [sampledMutant("src/x.ts", 2), sampledMutant("src/x.ts", 12)];
    const found = indexedTests(mutants, index, same);
    const secondsOf = (test: string) => index.tests[test as keyof typeof index.tests].seconds;
    assert.deepEqual(cheapestTests(found, secondsOf, { perMutant: 2, maxSeconds: 10 }), {
      tests: ["src/x.test.ts", "test/fast.test.ts"],
      seconds: 6,
      short: [mutantKey(sampledMutant("src/x.ts", 12))],
      guarded: [],
    });
  });
});

describe("a mutant's guarding tests before the cheapest (decision 0079)", () => {
  // A line of the write-back: the test written for its guard is slower than tests that merely pass by.
  const candidates = new Map([
    ["guard", ["test/cheap-a.test.ts", "test/cheap-b.test.ts", "test/guards.test.ts"]],
    ["other", ["test/cheap-a.test.ts", "test/cheap-b.test.ts"]],
  ]);
  const seconds: Record<string, number> = {
    "test/cheap-a.test.ts": 10,
    "test/cheap-b.test.ts": 12,
    "test/guards.test.ts": 50,
  };
  const secondsOf = (test: string) => seconds[test] ?? 0;
  // The probe's ranking of the tests that reach each line's file (testCandidates), best first: it
  // holds tests that do not execute the line, and not every test that does.
  const ranking: Record<string, string[]> = {
    guard: ["test/unrun.test.ts", "test/guards.test.ts", "test/cheap-b.test.ts", "test/cheap-a.test.ts"],
    other: ["test/cheap-b.test.ts"],
  };

  it("are the first of the probe's ranking that execute the line, perMutant of them", () => {
    const guards = guardingTests(candidates, (key) => ranking[key] ?? [], 2);
    assert.deepEqual(guards.get("guard"), ["test/guards.test.ts", "test/cheap-b.test.ts"]);
    // A test the ranking leaves out (no static import reaches the file) guards nothing.
    assert.deepEqual(guards.get("other"), ["test/cheap-b.test.ts"]);
    assert.deepEqual(guardingTests(candidates, (key) => ranking[key] ?? [], 1).get("guard"), [
      "test/guards.test.ts",
    ]);
  });

  it("takes a line's guarding test before a cheaper one that only executes it", () => {
    const guards = guardingTests(candidates, (key) => ranking[key] ?? [], 1);
    // Cheapest alone: the two cheap tests give both lines their two, and the guard's test is left out.
    assert.deepEqual(cheapestTests(candidates, secondsOf, { perMutant: 2 }).tests, [
      "test/cheap-a.test.ts",
      "test/cheap-b.test.ts",
    ]);
    assert.deepEqual(cheapestTests(candidates, secondsOf, { perMutant: 2, guards }), {
      tests: ["test/cheap-a.test.ts", "test/cheap-b.test.ts", "test/guards.test.ts"],
      seconds: 72,
      short: [],
      guarded: ["guard", "other"],
    });
    // Room for one test each: the guard's own, then the cheapest for the other line.
    assert.deepEqual(cheapestTests(candidates, secondsOf, { perMutant: 1, guards }).tests, [
      "test/cheap-b.test.ts",
      "test/guards.test.ts",
    ]);
  });

  it("fills what a line still wants with the cheapest, counting the guards already taken, within the budget", () => {
    const guards = guardingTests(candidates, (key) => ranking[key] ?? [], 1);
    // The guard's test (50 s) and one cheap test fit in 62 s; a second cheap one would not.
    assert.deepEqual(cheapestTests(candidates, secondsOf, { perMutant: 2, maxSeconds: 62, guards }), {
      tests: ["test/cheap-b.test.ts", "test/guards.test.ts"],
      seconds: 62,
      short: [],
      guarded: ["guard", "other"],
    });
    // No room for the guard's test: the line still gets the cheapest that execute it.
    const alone = new Map([["guard", candidates.get("guard") ?? []]]);
    const itsGuards = guardingTests(alone, (key) => ranking[key] ?? [], 1);
    assert.deepEqual(cheapestTests(alone, secondsOf, { perMutant: 1, maxSeconds: 20, guards: itsGuards }), {
      tests: ["test/cheap-a.test.ts"],
      seconds: 10,
      short: [],
      guarded: [],
    });
  });

  it("passes over a guarding test that would leave another line with no test at all", () => {
    // The guard's test (50 s) fits in 60 s, but then nothing is left for the line only a 15 s test runs.
    const lines = new Map([
      ["guard", ["test/cheap-a.test.ts", "test/guards.test.ts"]],
      ["lonely", ["test/only.test.ts"]],
    ]);
    const secondsOf = (test: string) => ({ "test/only.test.ts": 15 })[test] ?? seconds[test] ?? 0;
    const guards = guardingTests(lines, (key) => ranking[key] ?? [], 1);
    assert.deepEqual(cheapestTests(lines, secondsOf, { perMutant: 2, maxSeconds: 60, guards }), {
      tests: ["test/cheap-a.test.ts", "test/only.test.ts"],
      seconds: 25,
      short: [],
      guarded: [],
    });
    // With room for all three, the guard's test comes too.
    assert.deepEqual(cheapestTests(lines, secondsOf, { perMutant: 2, maxSeconds: 75, guards }).tests, [
      "test/cheap-a.test.ts",
      "test/guards.test.ts",
      "test/only.test.ts",
    ]);
  });
});

describe("a line the index cannot map is probed among the index's tests of its file (decision 0082)", () => {
  const mutant = (line: number) => sampledMutant("src/x.ts", line);
  const index = {
    tests: {
      "test/imports-x.test.ts": { seconds: 30, blob: "i" },
      "test/x-area.test.ts": { seconds: 20, blob: "a" },
      "test/through-a-child.test.ts": { seconds: 5, blob: "c" },
      "test/spawns-x.test.ts": { seconds: 6, blob: "s" },
      "test/far.test.ts": { seconds: 8, blob: "f" },
      "test/other-file.test.ts": { seconds: 2, blob: "o" },
    },
    files: {
      "src/x.ts": {
        blob: "old",
        lines: {
          "test/imports-x.test.ts": "1-10",
          "test/x-area.test.ts": "1-4",
          "test/through-a-child.test.ts": "1-3",
          "test/spawns-x.test.ts": "1-2,5-9",
          "test/far.test.ts": "1-9",
        },
      },
      "src/y.ts": { blob: "y", lines: { "test/other-file.test.ts": "1-5" } },
    },
  };
  // The file now: lines 11 and 12 added below the indexed version's last line, 10.
  const added = () => (line: number) =>
    line > 10 ? { lines: [10, 11], all: true } : { lines: [line], all: false };
  // The probe's ranking of the tests reaching src/x.ts (testCandidates): a test the change edited
  // first, then one importing it, then its area; it holds tests the index does not list for the file.
  const ranked = [
    { test: "test/edited.test.ts", distance: 0 },
    { test: "test/imports-x.test.ts", distance: 0 },
    { test: "test/never-runs-x.test.ts", distance: 1 },
    { test: "test/x-area.test.ts", distance: 2 },
    { test: "test/far.test.ts", distance: 5 },
  ];
  const fresh = new Set(["test/edited.test.ts"]);

  it("sends a mutant on a line the change added, in a file changed since the index, to the probe", () => {
    const mutants = [mutant(3), mutant(12)];
    const candidates = indexedTests(mutants, index, added);
    assert.deepEqual(candidates.get(mutantKey(mutant(12))), []);
    assert.deepEqual(unmappedMutants(mutants, index, candidates, new Set(["src/x.ts"])), [mutant(12)]);
    // Unchanged since the index: a line no indexed test executes is one no test executes.
    assert.deepEqual(unmappedMutants(mutants, index, candidates, new Set()), []);
  });

  it("gives it the index's tests of its file at any line, in the guarding ranking, then those the ranking lacks", () => {
    const unmapped = [mutant(12)];
    assert.deepEqual(
      probeCandidatesOf("src/x.ts", ranked, { index, fresh, unmapped }).map(({ test }) => test),
      [
        "test/edited.test.ts",
        "test/imports-x.test.ts",
        "test/x-area.test.ts",
        "test/far.test.ts",
        // No static import reaches the file: the one that executes more of it first.
        "test/spawns-x.test.ts",
        "test/through-a-child.test.ts",
      ],
    );
    // With every line mapped, the probe runs only what is new to the index, as before.
    assert.deepEqual(
      probeCandidatesOf("src/x.ts", ranked, { index, fresh, unmapped: [] }).map(({ test }) => test),
      ["test/edited.test.ts"],
    );
  });

  it("sends every mutant of a file whose indexed version is gone from the repository to the probe", () => {
    const repo = mkdtempSync(join(tmpdir(), "possekit-stryker-index-gone-"));
    try {
      spawnSync("git", ["init", "-q"], { cwd: repo });
      writeFileSync(join(repo, "x.ts"), "one\ntwo\n");
      // A history rewritten since the index was built: its blob id names nothing here.
      const map = lineMapOf(repo, "x.ts", "1d5f6f25ba67e59f420e0a918a342dd8bfc17ea9");
      assert.equal(map, null);
      const mutants = [mutant(3), mutant(12)];
      const candidates = indexedTests(mutants, index, () => map);
      const unmapped = unmappedMutants(mutants, index, candidates, new Set(["src/x.ts"]));
      assert.deepEqual(unmapped, mutants);
      assert.equal(probeCandidatesOf("src/x.ts", ranked, { index, fresh, unmapped }).length, 6);
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });
});

describe("the command's options", () => {
  it("names a mistaken option in one line, and says what to write instead", () => {
    assert.equal(optionMistake(["--refresh"]), null);
    assert.equal(optionMistake(["--jobs", "2", "test/follow"]), null);
    assert.equal(optionMistake(["--check", "test/a.test.ts"]), null);
    assert.match(
      optionMistake(["--hepl"]) ?? "",
      /^Unknown option --hepl: write one of --refresh, --stale, --check, --jobs, --help/,
    );
    assert.match(optionMistake(["-r"]) ?? "", /^Unknown option -r:/);
    assert.match(optionMistake(["--jobs", "x"]) ?? "", /^--jobs needs a number .* write --jobs 2$/);
    assert.match(optionMistake(["--jobs"]) ?? "", /^--jobs needs a number/);
  });

  it("prints its usage for --help and starts no build for a typo", () => {
    const run = (arg: string) =>
      spawnSync(process.execPath, ["scripts/stryker-index.mjs", arg], { encoding: "utf8", timeout: 30_000 });
    const help = run("--help");
    assert.equal(help.status, 0);
    assert.match(help.stdout, /--refresh\s+only what is stale/);
    const typo = run("--hepl");
    assert.equal(typo.status, 2);
    assert.equal(typo.stdout, "", "nothing measured");
    assert.match(typo.stderr, /^Unknown option --hepl/);
  });
});
