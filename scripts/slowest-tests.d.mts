// Types of scripts/slowest-tests.mjs for the TypeScript test that imports it.
export declare function topLevelDurations(tap: string): { name: string; failed: boolean; seconds: number }[];
export declare function slowestLines(logs: { part: string; tap: string }[], top?: number): string[];
