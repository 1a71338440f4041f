// Types of scripts/test-tiers.mjs for the TypeScript test that imports it.
export declare const SYSTEM: string[];
export declare function tierOf(file: string): "unit" | "integration" | "system";
export declare function misplacedUnitTests(root: string, files: string[]): string[];
