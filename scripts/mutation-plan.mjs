// Which of the hand-written mutants a change needs CI runs, within the mutation part's budget
// (decision 0072; scripts/ci-plan.mjs finds why each one is needed, .ci/run gives the budget).
//
// The part scales with the mutants chosen (about SECONDS_PER_MUTANT each beside the other parts, and
// SYSTEM_SECONDS_PER_MUTANT for one with a system-tier test: decision 0085), and a large change
// touches hundreds: uncapped, it alone outlasted CI's 25 minutes. So CI runs those that fit in the
// part's budget of seconds (or at most a count of them), in this order of priority:
//   1. a new or edited entry of test/mutation/mutants.json: always, even over the cap (nothing has
//      shown yet that a test kills it, and its author is the one who must know);
//   2. a mutant whose source file changed;
//   3. one of whose test files changed;
//   4. one whose test imports a changed helper;
//   5. with no base commit, every mutant (the whole tree is the change).
// A mutant with several reasons counts at its first. Within the priority the budget cuts into, a
// seeded sample: the same seed (the HEAD commit's id, or MUTATION_SEED) takes the same mutants.
// Every mutant left out is printed by id, with the commands that run it.
import { random } from "./stryker-plan.mjs";

/**
 * Seconds one mutant adds to the part in CI, beside the other parts on a 2-core machine (the part runs
 * two mutants at a time), when its tests are unit or integration files: 3.5 in session 22's full run
 * (16 mutants, 111 s of mutant time). Before the tiers were priced apart (decision 0085), every
 * mutant cost the same: 7.5 s in session 20's run (236 mutants in about 29 minutes), 4.07 s for 116
 * (decision 0077), 7.74 s for 125, 6.93 s for 257 on a loaded machine. Rounded up to 5.
 */
export const SECONDS_PER_MUTANT = 5;

/**
 * Seconds a mutant adds when one of its tests is of the system tier (a browser, the possekit
 * command, several instances; scripts/test-tiers.mjs): such a file starts processes, and its mutant
 * took 2 to 132 s in session 22's full run, 43.5 s on average (19 mutants, 827 s of mutant time,
 * two at a time: 21.8 s of the part each). Rounded up to 25 (decision 0085).
 */
export const SYSTEM_SECONDS_PER_MUTANT = 25;

/** A mutant's seconds in the part, by the tiers of its tests (`tierOf`, scripts/test-tiers.mjs). */
export function secondsOfMutant(tests, tierOf) {
  return tests.some((test) => tierOf(test) === "system") ? SYSTEM_SECONDS_PER_MUTANT : SECONDS_PER_MUTANT;
}

/** The priorities, first to last; `must`: run whatever the cap. */
export const PRIORITIES = [
  { kind: "entry", label: "new or edited entry", must: true },
  { kind: "source", label: "source changed" },
  { kind: "test", label: "test changed" },
  { kind: "helper", label: "test imports a changed helper" },
  { kind: "tree", label: "no base commit" },
];

/** The rank (index in PRIORITIES) of a mutant chosen for these kinds of reason: its first. */
export function priorityOf(kinds) {
  const ranks = [...kinds].map((kind) => PRIORITIES.findIndex((priority) => priority.kind === kind));
  if (ranks.length === 0 || ranks.includes(-1)) throw new Error(`unknown reasons: ${[...kinds].join(", ")}`);
  return Math.min(...ranks);
}

/** The ids in a seeded order: sorted first, so that the list's order does not change the sample. */
function shuffled(ids, seed) {
  const order = [...ids].sort();
  const next = random(seed);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

/**
 * The mutants to run of `candidates` (a Map of id to the kinds of its reasons), beside those that
 * must run: at most `cap` of them (a count), and within `budget` seconds of the part, each costing
 * `secondsOf(id)` (no cap, no budget: all). A mutant that does not fit is left out, and a cheaper one
 * after it may still fit. Returns { run, left, groups, seconds }: `run` and `left` ids in priority
 * order, per priority that has candidates { label, must, run: [ids], left: [ids] }, and the seconds
 * of those that run.
 */
export function chooseMutants(
  candidates,
  { cap = null, budget = null, secondsOf = () => SECONDS_PER_MUTANT, seed = 0 } = {},
) {
  const byRank = PRIORITIES.map(() => []);
  for (const [id, kinds] of candidates) byRank[priorityOf(kinds)].push(id);
  let room = cap === null || cap === undefined ? Number.POSITIVE_INFINITY : cap;
  let secondsLeft = budget === null || budget === undefined ? Number.POSITIVE_INFINITY : budget;
  let seconds = 0;
  const groups = [];
  for (const [rank, ids] of byRank.entries()) {
    if (ids.length === 0) continue;
    const { label, must = false } = PRIORITIES[rank];
    const run = [];
    const left = [];
    for (const id of shuffled(ids, seed)) {
      const cost = secondsOf(id);
      if (must || (room >= 1 && cost <= secondsLeft)) {
        run.push(id);
        room = Math.max(0, room - 1);
        secondsLeft -= cost;
        seconds += cost;
      } else left.push(id);
    }
    groups.push({ label, must, run, left });
  }
  return {
    run: groups.flatMap((group) => group.run),
    left: groups.flatMap((group) => group.left),
    groups,
    seconds,
  };
}

/** "92 of 188 (77 new or edited entry, 15 of 111 source changed, 0 of 35 test changed)". */
export function chosenSummary({ run, left, groups }) {
  const parts = groups.map((group) =>
    group.left.length === 0
      ? `${group.run.length} ${group.label}`
      : `${group.run.length} of ${group.run.length + group.left.length} ${group.label}`,
  );
  return `${run.length} of ${run.length + left.length} (${parts.join(", ")})`;
}

/**
 * The lines CI prints for the mutants it left out: each by id under its priority, and how to run
 * them. None when every mutant the change needs runs.
 */
export function leftOutLines({ left, groups }, { cap = null, budget = null, seedText }) {
  if (left.length === 0) return [];
  const limits = [
    ...(cap === null || cap === undefined ? [] : [`the cap of ${cap}`]),
    ...(budget === null || budget === undefined ? [] : [`the budget of ${Math.round(budget)} s`]),
  ];
  return [
    `Mutants left out: ${left.length}, over ${limits.join(" and ") || "the cap"} (seed ${seedText}; decision 0072). Run them with ` +
      "MUTATION=all bash .ci/run (every mutant), or node scripts/mutation.mjs --exact <ids>:",
    ...groups
      .filter((group) => group.left.length > 0)
      .map((group) => `  ${group.label}, ${group.left.length} not run: ${group.left.join(" ")}`),
  ];
}
