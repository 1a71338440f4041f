// Types of scripts/stryker-plan.mjs for the TypeScript test that imports it.
export type LineRange = [number, number];
export interface Place {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}
export interface Mutant extends Place {
  file: string;
  mutator: string;
  replacement: string;
}
export interface FolderScore {
  folder: string;
  killed: number;
  survived: number;
  noCoverage: number;
  score: number;
  covered: number;
  /** The highest score the folder plausibly has, given this sample (one-sided 95 % Wilson bound). */
  bound: number;
  threshold: number;
  ok: boolean;
}
export declare function folderOf(file: string, folders: Record<string, number>): string | undefined;
export declare function isMutable(file: string, folders: Record<string, number>): boolean;
export declare function changedLineRanges(diff: string): Map<string, LineRange[]>;
export declare function mutateEntries(rangesByFile: Map<string, LineRange[] | "all">): string[];
export declare function mutantsIn(
  rangesByFile: Map<string, (LineRange | Place)[] | "all">,
): Promise<Mutant[]>;
export declare function seedOf(text: string): number;
export declare function sampleMutants(
  mutants: Mutant[],
  cap: number | undefined | null,
  seed: number,
): { chosen: Mutant[]; mutate: string[] | null; all: Mutant[] };
export declare function folderScores(
  report: { files: Record<string, { mutants: ReportMutant[] }> },
  folders: Record<string, number>,
): FolderScore[];
export declare function plausibleScore(killed: number, valid: number): number;
export declare function scoreLine(score: FolderScore): string;
export declare function gateVerdict(
  scores: FolderScore[],
  reportedOnly?: Record<string, string>,
): { exit: 0 | 1; line: string };
export interface ReportMutant {
  status: string;
  mutatorName?: string;
  replacement?: string;
  location?: { start: { line: number; column: number }; end: { line: number; column: number } };
}
export declare function standingMutants(report: {
  files: Record<string, { mutants: Required<ReportMutant>[] }>;
}): string[];
export declare function relativeImports(file: string, source: string): string[];
export declare function testsReaching(
  file: string,
  tests: Map<string, Set<string>>,
  modules: Map<string, Set<string>>,
  options?: { max?: number; maxDirect?: number; depth?: number },
): { tests: string[]; leftOut: number };
