// Types of scripts/mutation-plan.mjs for the TypeScript test that imports it.
export type Kind = "entry" | "source" | "test" | "helper" | "tree";
export interface Group {
  label: string;
  must: boolean;
  run: string[];
  left: string[];
}
export interface Plan {
  run: string[];
  left: string[];
  groups: Group[];
  /** The seconds of those that run. */
  seconds: number;
}
export declare const SECONDS_PER_MUTANT: number;
export declare const SYSTEM_SECONDS_PER_MUTANT: number;
export declare function secondsOfMutant(tests: string[], tierOf: (file: string) => string): number;
export declare const PRIORITIES: { kind: Kind; label: string; must?: boolean }[];
export declare function priorityOf(kinds: Iterable<string>): number;
export declare function chooseMutants(
  candidates: Map<string, string[]>,
  options?: {
    cap?: number | null;
    budget?: number | null;
    secondsOf?: (id: string) => number;
    seed?: number;
  },
): Plan;
export declare function chosenSummary(plan: Plan): string;
export declare function leftOutLines(
  plan: Plan,
  options: { cap?: number | null; budget?: number | null; seedText: string },
): string[];
