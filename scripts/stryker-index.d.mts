// Types of scripts/stryker-index.mjs for the TypeScript test that imports it.
import type { Mutant } from "./stryker-plan.mjs";
import type { Position } from "./stryker-probe.mjs";

export type LineMap = (line: number) => { lines: number[]; all: boolean };
export interface CoverageIndex {
  built?: { commit: string; date: string; jobs?: number };
  tests: Record<string, { seconds: number; blob: string }>;
  files: Record<string, { blob: string; lines: Record<string, string> }>;
}
export declare const INDEX_FILE: string;
export declare function unitAndIntegration(root: string): string[];
export declare function executedLines(text: string, loads: { start: Position; end: Position }[][]): number[];
export declare function rangesText(lines: number[]): string;
export declare function rangesHold(text: string, line: number): boolean;
export declare function lineMapFromDiff(diff: string): LineMap;
export declare function indexedTests(
  mutants: Mutant[],
  index: CoverageIndex,
  lineMapOf: (file: string) => LineMap | null,
): Map<string, string[]>;
export declare function unmappedMutants<M extends Mutant>(
  mutants: M[],
  index: CoverageIndex,
  candidates: Map<string, string[]>,
  changed: Set<string>,
): M[];
export declare function probeCandidatesOf(
  file: string,
  ranked: { test: string; distance: number | null }[],
  options: { index: CoverageIndex; fresh: Set<string>; unmapped: Mutant[] },
): { test: string; distance: number | null }[];
export declare function guardingTests(
  candidates: Map<string, string[]>,
  orderOf: (key: string) => string[],
  perMutant?: number,
): Map<string, string[]>;
export declare function cheapestTests(
  candidates: Map<string, string[]>,
  secondsOf: (test: string) => number,
  options?: { perMutant?: number; maxSeconds?: number; guards?: Map<string, string[]> },
): { tests: string[]; seconds: number; short: string[]; guarded: string[] };
export declare function blobOf(root: string, file: string): string;
export declare function lineMapOf(root: string, file: string, blob: string | undefined): LineMap | null;
export declare function packIndex(index: CoverageIndex): {
  tests: [string, number, string][];
  files: Record<string, { blob: string; runs: Record<string, number[]> }>;
  [key: string]: unknown;
};
export declare function unpackIndex(packed: unknown): CoverageIndex;
export declare function readIndex(root: string): CoverageIndex | null;
export declare function staleness(
  root: string,
  index: CoverageIndex,
  sources: string[],
  tests: string[],
): { sources: string[]; unindexed: string[]; tests: string[]; missing: string[] };
/** The one line naming a mistaken option of the command, or null. */
export function optionMistake(args: string[]): string | null;
