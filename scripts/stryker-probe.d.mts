// Types of scripts/stryker-probe.mjs for the TypeScript test that imports it.
import type { Mutant } from "./stryker-plan.mjs";

export declare function mutantKey(mutant: Mutant): string;
export declare function testCandidates(
  file: string,
  tests: Map<string, Set<string>>,
  modules: Map<string, Set<string>>,
  options?: { depth?: number; words?: Set<string>; textOf?: (test: string) => string },
): { test: string; distance: number }[];
export declare function wordsOfMutants(
  source: string,
  mutants: { line: number; endLine: number }[],
): Set<string>;
export interface Position {
  line: number;
  column: number;
}
export declare function unrunRanges(
  dumps: unknown[],
  files: string[],
  root: string,
): { file: string; unrun: { start: Position; end: Position }[] }[];
export declare function inUnrun(at: Position, unrun: { start: Position; end: Position }[]): boolean;
export declare function runUnderCoverage(
  test: string,
  options: { root: string; timeoutMs?: number },
): Promise<{ dumps: unknown[]; seconds: number } | null>;
export declare function mutantsExecuted(dumps: unknown[], mutants: Mutant[], root: string): Set<string>;
export declare function probeTest(
  test: string,
  mutants: Mutant[],
  options: { root: string; timeoutMs?: number },
): Promise<Set<string> | null>;
export declare function chooseTests(
  mutantsByFile: Map<string, Mutant[]>,
  candidatesByFile: Map<string, { test: string; distance: number }[]>,
  probe: (test: string) => Promise<Set<string> | null>,
  options?: { maxTests?: number; maxUnit?: number; maxProbes?: number; jobs?: number },
): Promise<{
  byFile: Map<string, { tests: string[]; probed: number; candidates: number; unexecuted: Mutant[] }>;
  tests: string[];
  probes: number;
}>;
