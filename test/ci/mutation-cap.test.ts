// CI's hand-written mutants within the mutation part's budget (decision 0072, scripts/mutation-plan.mjs):
// the new or edited entries always run, the rest by priority up to the cap, a seeded sample within
// the priority the cap cuts into, and every mutant left out printed by id with how to run it; and
// scripts/ci-plan.mjs applying that rule to a real change in a git repository.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, describe, it } from "node:test";
import {
  chooseMutants,
  chosenSummary,
  leftOutLines,
  SECONDS_PER_MUTANT,
  SYSTEM_SECONDS_PER_MUTANT,
  secondsOfMutant,
} from "../../scripts/mutation-plan.mjs";

/** `count` candidates named `<prefix>-<n>`, each with these kinds of reason. */
const some = (prefix: string, count: number, kinds: string[]): [string, string[]][] =>
  Array.from({ length: count }, (_, n) => [`${prefix}-${String(n).padStart(2, "0")}`, kinds]);

describe("which mutants run under the cap", () => {
  it("runs every new or edited entry even when they alone exceed the cap, and nothing else then", () => {
    const candidates = new Map([...some("source", 10, ["source"]), ...some("new", 5, ["entry"])]);
    for (const cap of [0, 2, 5]) {
      const plan = chooseMutants(candidates, { cap, seed: 7 });
      assert.deepEqual(
        [...plan.run].sort(),
        some("new", 5, []).map(([id]) => id),
      );
      assert.deepEqual(
        [...plan.left].sort(),
        some("source", 10, []).map(([id]) => id),
      );
    }
  });

  it("fills the rest of the cap by priority: source changed, then test changed, then a changed helper", () => {
    const candidates = new Map([
      ...some("helper", 4, ["helper"]),
      ...some("test", 4, ["test"]),
      // Chosen for its test and its source: it counts as source changed, its first priority.
      ...some("both", 2, ["test", "source"]),
      ...some("source", 2, ["source"]),
      ...some("new", 1, ["entry", "source"]),
    ]);
    const plan = chooseMutants(candidates, { cap: 7, seed: 3 });
    const kindOf = (id: string) => id.replace(/-\d+$/, "");
    assert.deepEqual(plan.run.slice(0, 1).map(kindOf), ["new"]);
    assert.deepEqual(plan.run.slice(1, 5).map(kindOf).sort(), ["both", "both", "source", "source"]);
    assert.deepEqual(plan.run.slice(5).map(kindOf), ["test", "test"]);
    assert.deepEqual(plan.left.map(kindOf), ["test", "test", ...Array(4).fill("helper")]);
    assert.deepEqual(
      plan.groups.map(({ label, run, left }) => [label, run.length, left.length]),
      [
        ["new or edited entry", 1, 0],
        ["source changed", 4, 0],
        ["test changed", 2, 2],
        ["test imports a changed helper", 0, 4],
      ],
    );
    assert.equal(
      chosenSummary(plan),
      "7 of 13 (1 new or edited entry, 4 source changed, 2 of 4 test changed, 0 of 4 test imports a changed helper)",
    );
  });

  it("takes the same sample for the same seed, whatever the candidates' order, and another for another seed", () => {
    const list = [...some("source", 30, ["source"]), ...some("new", 2, ["entry"])];
    const first = chooseMutants(new Map(list), { cap: 8, seed: 1234 });
    const again = chooseMutants(new Map([...list].reverse()), { cap: 8, seed: 1234 });
    const other = chooseMutants(new Map(list), { cap: 8, seed: 98765 });
    assert.equal(first.run.length, 8);
    assert.deepEqual(again.run, first.run);
    assert.deepEqual(again.left, first.left);
    assert.notDeepEqual([...other.run].sort(), [...first.run].sort());
    // A sample, not the first ids of the list.
    assert.notDeepEqual(
      first.run.filter((id) => id.startsWith("source")).sort(),
      list.slice(0, 6).map(([id]) => id),
    );
  });

  it("runs every candidate with no cap, and leaves none out to print", () => {
    const candidates = new Map([...some("source", 3, ["source"]), ...some("tree", 3, ["tree"])]);
    const plan = chooseMutants(candidates, { cap: null, seed: 1 });
    assert.equal(plan.run.length, 6);
    assert.deepEqual(plan.left, []);
    assert.deepEqual(leftOutLines(plan, { cap: null, seedText: "abc" }), []);
  });

  it("prints every mutant left out by id under its priority, none that runs, and how to run them", () => {
    const candidates = new Map([
      ...some("new", 1, ["entry"]),
      ...some("source", 6, ["source"]),
      ...some("test", 3, ["test"]),
    ]);
    const plan = chooseMutants(candidates, { cap: 4, seed: 5 });
    const lines = leftOutLines(plan, { cap: 4, seedText: "2050614a" });
    assert.match(lines[0] ?? "", /^Mutants left out: 6, over the cap of 4 \(seed 2050614a; decision 0072\)/);
    assert.match(lines[0] ?? "", /MUTATION=all bash \.ci\/run/);
    assert.match(lines[0] ?? "", /node scripts\/mutation\.mjs --exact <ids>/);
    assert.equal(lines.length, 3);
    assert.match(lines[1] ?? "", /^ {2}source changed, 3 not run: /);
    assert.match(lines[2] ?? "", /^ {2}test changed, 3 not run: /);
    const printed = lines.slice(1).flatMap((line) => line.split(": ")[1]?.split(" ") ?? []);
    assert.deepEqual([...printed].sort(), [...plan.left].sort());
    for (const id of plan.run) assert.ok(!printed.includes(id), `${id} runs, yet is printed as left out`);
  });

  it("costs a mutant by its tests' tier, and fits in the budget what its seconds pay for", () => {
    const tierOf = (file: string) => (file.startsWith("test/e2e/") ? "system" : "integration");
    assert.equal(secondsOfMutant(["test/a.test.ts"], tierOf), SECONDS_PER_MUTANT);
    assert.equal(
      secondsOfMutant(["test/a.test.ts", "test/e2e/b.test.ts"], tierOf),
      SYSTEM_SECONDS_PER_MUTANT,
    );
    assert.ok(
      SYSTEM_SECONDS_PER_MUTANT >= 4 * SECONDS_PER_MUTANT,
      "a system-tier test costs many times a plain one",
    );
    const candidates = new Map([...some("browser", 3, ["source"]), ...some("plain", 3, ["source"])]);
    const secondsOf = (id: string) => (id.startsWith("browser") ? 60 : 7.5);
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const plan = chooseMutants(candidates, { budget: 80, secondsOf, seed });
      const taken = plan.run.reduce((sum, id) => sum + secondsOf(id), 0);
      assert.equal(plan.seconds, taken);
      assert.ok(plan.seconds <= 80, `seed ${seed}: ${plan.seconds} s taken of 80`);
      assert.ok(plan.run.filter((id) => id.startsWith("browser")).length <= 1);
      // A mutant that does not fit leaves room for a cheaper one after it: none left out would fit.
      for (const id of plan.left) assert.ok(secondsOf(id) > 80 - plan.seconds, `seed ${seed}: ${id} fits`);
    }
    // A spent budget takes none but those that must run, and counts their seconds.
    const spent = chooseMutants(new Map([...some("new", 2, ["entry"]), ...some("plain", 2, ["source"])]), {
      budget: 0,
      secondsOf,
      seed: 1,
    });
    assert.deepEqual([...spent.run].sort(), ["new-00", "new-01"]);
    assert.equal(spent.seconds, 15);
    assert.match(
      leftOutLines(spent, { budget: 0, seedText: "abc" })[0] ?? "",
      /^Mutants left out: 2, over the budget of 0 s \(seed abc; decision 0072\)/,
    );
  });
});

describe("scripts/ci-plan.mjs on a change in a git repository", () => {
  const ciPlan = resolve(import.meta.dirname, "../../scripts/ci-plan.mjs");
  const repo = mkdtempSync(join(tmpdir(), "possekit-mutation-cap-"));
  after(() => rmSync(repo, { recursive: true, force: true }));
  const git = (...args: string[]) => {
    const result = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.test", ...args], {
      cwd: repo,
      encoding: "utf8",
    });
    assert.equal(result.status, 0, result.stderr);
    return result.stdout.trim();
  };
  const entry = (id: string, n: number) => ({
    id,
    promise: `promise ${id}`,
    file: `src/m${n}.ts`,
    search: "a",
    replace: "b",
    tests: [`test/m${n}.test.ts`],
  });
  const write = (path: string, text: string) => {
    mkdirSync(join(repo, path, ".."), { recursive: true });
    writeFileSync(join(repo, path), text);
  };
  const list = (entries: object[]) => write("test/mutation/mutants.json", JSON.stringify(entries, null, 2));
  const old = Array.from({ length: 8 }, (_, n) => entry(`old-${n}`, n));
  // One mutant guarded by a browser test: it costs SYSTEM_SECONDS_PER_MUTANT.
  old[7] = { ...entry("old-7", 7), tests: ["test/e2e/m7.test.ts"] };
  git("init", "-q", "-b", "main");
  for (let n = 0; n < 9; n++) write(`src/m${n}.ts`, "export const a = 1;\n");
  list(old);
  git("add", ".");
  git("commit", "-q", "-m", "base");
  const base = git("rev-parse", "HEAD");
  // The change: every old mutant's source edited, and one new mutant.
  for (let n = 0; n < 9; n++) write(`src/m${n}.ts`, "export const a = 2;\n");
  list([...old, entry("new-one", 8)]);
  git("commit", "-qam", "change");

  /** The plan's mutant variables, as .ci/run's eval reads them. */
  const plan = (env: Record<string, string>) => {
    const result = spawnSync(
      "bash",
      [
        "-c",
        `eval "$(node ${JSON.stringify(ciPlan)} --mutants)" && printf '%s\\0' "$MUTANTS" "$MUTANTS_LEFT" "$MUTANTS_LEFT_OUT" "$MUTANTS_COUNT" "$MUTANTS_WHY" "$MUTANTS_SECONDS"`,
      ],
      { cwd: repo, encoding: "utf8", env: { ...process.env, CI_BASE: base, MUTATION: "", ...env } },
    );
    assert.equal(result.status, 0, result.stderr);
    const [run = "", left = "", leftOut = "", count = "", why = "", seconds = ""] = result.stdout.split("\0");
    return {
      run: run.split(" ").filter(Boolean),
      left: left.split(" ").filter(Boolean),
      leftOut,
      count,
      why,
      seconds: Number(seconds),
    };
  };

  it("runs the new mutant even with a cap of one, samples the rest, and prints those left out", () => {
    const first = plan({ MUTATION_MAX_MUTANTS: "3", MUTATION_SEED: "one" });
    assert.equal(first.run[0], "new-one");
    assert.equal(first.run.length, 3);
    assert.equal(first.count, "3");
    assert.equal(first.left.length, 6);
    for (const id of first.left) assert.match(first.leftOut, new RegExp(` ${id}( |$)`, "m"));
    assert.match(first.why, /^3 of 9 \(1 new or edited entry, 2 of 8 source changed\); cap 3/);
    assert.deepEqual(plan({ MUTATION_MAX_MUTANTS: "3", MUTATION_SEED: "one" }).run, first.run);
    assert.deepEqual(plan({ MUTATION_MAX_MUTANTS: "1", MUTATION_SEED: "one" }).run, ["new-one"]);
  });

  it("takes what fits in the part's budget in seconds, each at its tier's cost, and every one without a limit or with MUTATION=all", () => {
    const budgeted = plan({ MUTATION_BUDGET_SECONDS: String(SECONDS_PER_MUTANT * 5) });
    assert.equal(budgeted.run.length, 5);
    assert.ok(!budgeted.run.includes("old-7"), "the browser-tested mutant costs more than the budget");
    assert.equal(budgeted.seconds, Math.round(SECONDS_PER_MUTANT * 5));
    assert.match(
      budgeted.leftOut,
      new RegExp(`^Mutants left out: 4, over the budget of ${Math.round(SECONDS_PER_MUTANT * 5)} s `),
    );
    const uncapped = plan({});
    assert.equal(uncapped.run.length, 9);
    assert.equal(uncapped.leftOut, "");
    assert.equal(uncapped.seconds, SECONDS_PER_MUTANT * 8 + SYSTEM_SECONDS_PER_MUTANT);
    assert.deepEqual(plan({ MUTATION: "all", MUTATION_MAX_MUTANTS: "1" }).run, ["all"]);
  });
});
