// Types of scripts/test-group-entry.mjs for the TypeScript test that imports it.
export declare function ownImports(files: string[]): string[];
export declare function groupEntry(files: string[], options?: { unit?: boolean }): string;
