// Which of the hand-written mutants a change needs CI runs, within the mutation part's budget
// (decision 0072; scripts/ci-plan.mjs finds why each one is needed, .ci/run gives the budget).
//
// The part scales with the mutants chosen (about SECONDS_PER_MUTANT each beside the other parts), and a
// large change touches hundreds: uncapped, it alone outlasted CI's 25 minutes. So CI runs at most
// `cap` of them, in this order of priority:
//   1. a new or edited entry of test/mutation/mutants.json: always, even over the cap (nothing has
//      shown yet that a test kills it, and its author is the one who must know);
//   2. a mutant whose source file changed;
//   3. one of whose test files changed;
//   4. one whose test imports a changed helper;
//   5. with no base commit, every mutant (the whole tree is the change).
// A mutant with several reasons counts at its first. Within the priority the cap cuts into, a
// seeded sample: the same seed (the HEAD commit's id, or MUTATION_SEED) takes the same mutants.
// Every mutant left out is printed by id, with the commands that run it.
import { random } from "./stryker-plan.mjs";

/**
 * Seconds one mutant adds to the part in CI, beside the other parts on a 2-core machine: about 7.5
 * in the last full run (29 Nov, session 20: 236 mutants in about 29 minutes beside the test and
 * system parts). Before: 472 s for 116 (4.07 s; decision 0077), 968 s for 125 on 28 Nov (7.74 s),
 * 1,781 s for 257 on a loaded machine (6.93 s): the cost follows the mutants' tests.
 */
export const SECONDS_PER_MUTANT = 7.5;

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

/** How many mutants fit in `seconds` of the part (none when the budget is spent). */
export function capFromBudget(seconds, secondsPerMutant = SECONDS_PER_MUTANT) {
  return Math.max(0, Math.floor(seconds / secondsPerMutant));
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
 * The mutants to run of `candidates` (a Map of id to the kinds of its reasons), at most `cap` beside
 * those that must run (no cap: all). Returns { run, left, groups }: `run` and `left` ids in priority
 * order, and per priority that has candidates { label, must, run: [ids], left: [ids] }.
 */
export function chooseMutants(candidates, { cap = null, seed = 0 } = {}) {
  const byRank = PRIORITIES.map(() => []);
  for (const [id, kinds] of candidates) byRank[priorityOf(kinds)].push(id);
  let room = cap === null || cap === undefined ? Number.POSITIVE_INFINITY : cap;
  const groups = [];
  for (const [rank, ids] of byRank.entries()) {
    if (ids.length === 0) continue;
    const { label, must = false } = PRIORITIES[rank];
    const order = shuffled(ids, seed);
    const taken = must ? order.length : Math.min(order.length, room);
    room = Math.max(0, room - taken);
    groups.push({ label, must, run: order.slice(0, taken), left: order.slice(taken) });
  }
  return {
    run: groups.flatMap((group) => group.run),
    left: groups.flatMap((group) => group.left),
    groups,
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
export function leftOutLines({ left, groups }, { cap, seedText }) {
  if (left.length === 0) return [];
  return [
    `Mutants left out: ${left.length}, over the cap of ${cap} (seed ${seedText}; decision 0072). Run them with ` +
      "MUTATION=all bash .ci/run (every mutant), or node scripts/mutation.mjs --exact <ids>:",
    ...groups
      .filter((group) => group.left.length > 0)
      .map((group) => `  ${group.label}, ${group.left.length} not run: ${group.left.join(" ")}`),
  ];
}
