// Which test files CI's generated-mutant part gives Stryker (decision 0071, scripts/stryker-probe.mjs):
// the candidates of the import graph, test helpers included, nearest first; a probe that runs a test
// under V8's coverage and tells which mutants' code it executed; and the choice that keeps a candidate
// only when it executes a mutant no kept test executes, within the caps.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { type Mutant, mutantsIn } from "../../scripts/stryker-plan.mjs";
import { chooseTests, mutantKey, probeTest, testCandidates } from "../../scripts/stryker-probe.mjs";

describe("the candidates: every test the import graph reaches, nearest first", () => {
  const tests = new Map([
    ["test/follow/delete.test.ts", new Set(["src/syndication/runs/syndicate-post.ts"])],
    ["test/syndication/batch.test.ts", new Set(["test/endpoint/endpoint-server.ts"])],
    ["test/accounts/page.test.ts", new Set(["test/endpoint/endpoint-server.ts"])],
    ["test/batch/runs.test.ts", new Set(["test/endpoint/endpoint-server.ts"])],
    ["src/syndication/runs/batch.test.ts", new Set(["src/syndication/runs/batch.ts"])],
    ["test/net/fetch.test.ts", new Set(["src/net/safe-fetch.ts"])],
  ]);
  const modules = new Map([
    ["src/syndication/runs/syndicate-post.ts", new Set<string>()],
    ["src/syndication/runs/batch.ts", new Set(["src/syndication/runs/syndicate-post.ts"])],
    ["src/server/app.ts", new Set(["src/syndication/runs/batch.ts"])],
    // A test that starts the host does so through a helper under test/: the graph goes through it.
    ["test/endpoint/endpoint-server.ts", new Set(["src/server/app.ts"])],
    ["src/net/safe-fetch.ts", new Set<string>()],
  ]);

  it("within the area, puts first the tests that name the mutated code's rare words", () => {
    const texts: Record<string, string> = {
      "test/syndication/batch.test.ts": "await run(); assert.equal(entry.state, 'held'); // recordHeld",
      "test/batch/runs.test.ts": "await run(); assert.ok(true);",
    };
    const ranked = testCandidates("src/syndication/runs/syndicate-post.ts", tests, modules, {
      words: new Set(["await", "held", "recordHeld"]),
      textOf: (test) => texts[test] ?? "await",
    }).map((c) => c.test);
    assert.deepEqual(ranked, [
      "test/follow/delete.test.ts",
      "test/syndication/batch.test.ts",
      "src/syndication/runs/batch.test.ts",
      "test/batch/runs.test.ts",
      "test/accounts/page.test.ts",
    ]);
  });

  it("goes on past the first importer's tests, to those that start the host through a helper", () => {
    assert.deepEqual(testCandidates("src/syndication/runs/syndicate-post.ts", tests, modules), [
      { test: "test/follow/delete.test.ts", distance: 0 },
      // Past those that import it, the module's area first: its folders (test/syndication/) and the
      // names of the modules that import it (test/batch/, batch.ts), then the nearest.
      { test: "src/syndication/runs/batch.test.ts", distance: 1 },
      { test: "test/batch/runs.test.ts", distance: 3 },
      { test: "test/syndication/batch.test.ts", distance: 3 },
      { test: "test/accounts/page.test.ts", distance: 3 },
    ]);
    assert.deepEqual(
      testCandidates("src/syndication/runs/syndicate-post.ts", tests, modules, { depth: 2 }).map(
        (c) => c.test,
      ),
      ["test/follow/delete.test.ts", "src/syndication/runs/batch.test.ts"],
    );
    assert.deepEqual(testCandidates("src/net/safe-fetch.ts", tests, modules), [
      { test: "test/net/fetch.test.ts", distance: 0 },
    ]);
  });
});

describe("the probe: which mutants' code a test file executes, under V8's coverage", () => {
  const dir = mkdtempSync(join(tmpdir(), "possekit-stryker-probe-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, "limits.ts"),
    [
      "export function clamp(value: number, low: number, high: number): number {",
      "  if (value < low) {",
      "    return low;",
      "  }",
      "  return value > high ? high : value;",
      "}",
      "export function unit(bytes: number): string {",
      '  return bytes > 1024 ? "KiB" : "B";',
      "}",
      "",
    ].join("\n"),
  );
  writeFileSync(join(dir, "uses-clamp.ts"), 'import { clamp } from "./limits.ts";\nclamp(5, 0, 10);\n');
  writeFileSync(join(dir, "fails.ts"), 'import { unit } from "./limits.ts";\nunit(1);\nprocess.exit(1);\n');

  it("counts a mutant executed when its code ran, and not when its block or function never did", async () => {
    const mutants = await mutantsIn(new Map([[join(dir, "limits.ts"), "all"]]));
    const ran = await probeTest("uses-clamp.ts", mutants, { root: dir });
    assert.ok(ran);
    const on = (line: number) => mutants.filter((m) => m.line === line && m.mutator !== "BlockStatement");
    const executed = (line: number) => on(line).filter((m) => ran.has(mutantKey(m)));
    // Line 2's condition ran, its block did not (5 is not below 0); line 5 ran; unit() never did.
    assert.ok(on(2).length >= 4 && executed(2).length === on(2).length, "line 2 ran");
    assert.ok(on(5).length >= 4 && executed(5).length === on(5).length, "line 5 ran");
    assert.ok(on(8).length >= 4);
    assert.deepEqual(executed(8), [], "unit() was never called");
    const block = (line: number) => mutants.find((m) => m.line === line && m.mutator === "BlockStatement");
    assert.equal(ran.has(mutantKey(block(2) as Mutant)), false, "the if's block never ran");
    assert.equal(ran.has(mutantKey(block(1) as Mutant)), true, "clamp's body ran");
  });

  it("answers null for a test file that fails: Stryker's first run would fail on it", async () => {
    const mutants = await mutantsIn(new Map([[join(dir, "limits.ts"), "all"]]));
    assert.equal(await probeTest("fails.ts", mutants, { root: dir }), null);
  });
});

describe("the choice: a candidate is kept when it executes a mutant no kept test executes", () => {
  const mutant = (file: string, line: number): Mutant => ({
    file,
    line,
    column: 2,
    endLine: line,
    endColumn: 9,
    mutator: "ConditionalExpression",
    replacement: "true",
  });
  const [a1, a2, a3] = [mutant("src/a.ts", 1), mutant("src/a.ts", 2), mutant("src/a.ts", 3)];
  const b1 = mutant("src/b.ts", 7);
  const candidates = (...tests: string[]) => tests.map((test, distance) => ({ test, distance }));
  const executes: Record<string, Mutant[] | null> = {
    "test/imports-only.test.ts": [],
    "test/first.test.ts": [a1],
    "test/again.test.ts": [a1],
    "test/second.test.ts": [a2, b1],
    "test/broken.test.ts": null,
    "test/third.test.ts": [a3],
    "src/a.test.ts": [a1, a2, a3],
  };
  const probing = () => {
    const probed: string[] = [];
    const probe = async (test: string) => {
      probed.push(test);
      const ran = executes[test];
      return ran === null || ran === undefined ? null : new Set(ran.map(mutantKey));
    };
    return { probed, probe };
  };

  it("keeps those that execute something new, never a failing one, and stops when all are executed", async () => {
    const { probed, probe } = probing();
    const choice = await chooseTests(
      new Map([
        ["src/a.ts", [a1, a2, a3]],
        ["src/b.ts", [b1]],
      ]),
      new Map([
        [
          "src/a.ts",
          candidates(
            "test/imports-only.test.ts",
            "test/first.test.ts",
            "test/again.test.ts",
            "test/broken.test.ts",
            "test/second.test.ts",
            "test/third.test.ts",
            "test/never-needed.test.ts",
          ),
        ],
        ["src/b.ts", candidates("test/second.test.ts", "test/never-needed.test.ts")],
      ]),
      probe,
    );
    assert.deepEqual(choice.byFile.get("src/a.ts")?.tests, [
      "test/first.test.ts",
      "test/second.test.ts",
      "test/third.test.ts",
    ]);
    assert.deepEqual(choice.byFile.get("src/a.ts")?.unexecuted, []);
    // b's mutant is already executed by a test kept for a: nothing more is probed for it.
    assert.deepEqual(choice.byFile.get("src/b.ts")?.tests, ["test/second.test.ts"]);
    assert.equal(choice.byFile.get("src/b.ts")?.probed, 0);
    assert.deepEqual(choice.tests, ["test/first.test.ts", "test/second.test.ts", "test/third.test.ts"]);
    assert.deepEqual(probed, [
      "test/imports-only.test.ts",
      "test/first.test.ts",
      "test/again.test.ts",
      "test/broken.test.ts",
      "test/second.test.ts",
      "test/third.test.ts",
    ]);
    assert.equal(choice.probes, 6);
  });

  it("probes at most maxProbes files in all, and says which mutants no kept test executes", async () => {
    const { probed, probe } = probing();
    const choice = await chooseTests(
      new Map([["src/a.ts", [a1, a2, a3]]]),
      new Map([
        ["src/a.ts", candidates("test/imports-only.test.ts", "test/first.test.ts", "test/second.test.ts")],
      ]),
      probe,
      { maxProbes: 2 },
    );
    assert.deepEqual(probed, ["test/imports-only.test.ts", "test/first.test.ts"]);
    assert.deepEqual(choice.byFile.get("src/a.ts")?.tests, ["test/first.test.ts"]);
    assert.deepEqual(choice.byFile.get("src/a.ts")?.unexecuted, [a2, a3]);
  });

  it("gives every file its share of the probes: the file with most mutants cannot spend them all", async () => {
    const { probed, probe } = probing();
    const c1 = mutant("src/c.ts", 9);
    const choice = await chooseTests(
      new Map([
        ["src/a.ts", [a1, a2, a3]],
        ["src/c.ts", [c1]],
      ]),
      new Map([
        ["src/a.ts", candidates("test/imports-only.test.ts", "test/again.test.ts", "test/first.test.ts")],
        ["src/c.ts", candidates("test/third.test.ts")],
      ]),
      probe,
      { maxProbes: 3 },
    );
    // a (3 mutants) goes first with a share of 2 of the 3 probes; c still gets the third.
    assert.deepEqual(probed, ["test/imports-only.test.ts", "test/again.test.ts", "test/third.test.ts"]);
    assert.equal(choice.byFile.get("src/c.ts")?.probed, 1);
    assert.deepEqual(choice.byFile.get("src/a.ts")?.unexecuted, [a2, a3]);
  });

  it("keeps at most maxTests integration files a source file, and unit files on a cap of their own", async () => {
    const { probe } = probing();
    const choice = await chooseTests(
      new Map([["src/a.ts", [a1, a2, a3]]]),
      new Map([["src/a.ts", candidates("test/first.test.ts", "test/second.test.ts", "src/a.test.ts")]]),
      probe,
      { maxTests: 1 },
    );
    // One integration file; the unit file, cheap, still comes in and executes the rest.
    assert.deepEqual(choice.byFile.get("src/a.ts")?.tests, ["test/first.test.ts", "src/a.test.ts"]);
    assert.deepEqual(choice.byFile.get("src/a.ts")?.unexecuted, []);
    const none = await chooseTests(
      new Map([["src/a.ts", [a1, a2, a3]]]),
      new Map([["src/a.ts", candidates("test/first.test.ts", "test/second.test.ts", "src/a.test.ts")]]),
      probing().probe,
      { maxTests: 1, maxUnit: 0 },
    );
    assert.deepEqual(none.byFile.get("src/a.ts")?.tests, ["test/first.test.ts"]);
    assert.deepEqual(none.byFile.get("src/a.ts")?.unexecuted, [a2, a3]);
  });

  it("with probes side by side, chooses the same tests whichever probe ends first", async () => {
    const files = new Map([["src/a.ts", [a1, a2, a3]]]);
    const order = candidates(
      "test/imports-only.test.ts",
      "test/again.test.ts",
      "test/first.test.ts",
      "test/second.test.ts",
      "test/third.test.ts",
    );
    const alone = await chooseTests(files, new Map([["src/a.ts", order]]), probing().probe);
    // The later candidates answer first: the choice still follows the candidates' order.
    const started: string[] = [];
    const reversed = async (test: string) => {
      started.push(test);
      await new Promise((done) => setImmediate(done));
      const wait = 5 - order.findIndex((c) => c.test === test);
      for (let i = 0; i < wait; i++) await new Promise((done) => setImmediate(done));
      return probing().probe(test);
    };
    const together = await chooseTests(files, new Map([["src/a.ts", order]]), reversed, {
      jobs: 3,
      maxProbes: 5,
    });
    assert.deepEqual(together.byFile.get("src/a.ts")?.tests, alone.byFile.get("src/a.ts")?.tests);
    assert.deepEqual(together.byFile.get("src/a.ts")?.tests, [
      "test/again.test.ts",
      "test/second.test.ts",
      "test/third.test.ts",
    ]);
    assert.deepEqual(started.slice(0, 3), [
      "test/imports-only.test.ts",
      "test/again.test.ts",
      "test/first.test.ts",
    ]);
    assert.equal(together.probes, 5);
  });
});
