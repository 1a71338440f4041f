// Types of scripts/failing-tests.mjs for the TypeScript test that imports it.
export declare function failingTests(
  tap: string,
  root?: string,
): { file: string; names: string[]; error: string | undefined }[];
export declare function failureLines(part: string, log: string, root?: string): string[];
export declare function failureReport(
  logs: { part: string; log: string }[],
  top?: number,
  root?: string,
): string[];
