// Types of entry.js (plain JavaScript, so that the command needs no build to choose what to run).
export declare const STAMP_FILE: string;
export interface SourceStamp {
  hash: string;
  files: Record<string, [number, number]>;
}
export declare function sourceStamp(root: string): SourceStamp;
export declare function builtFrom(root: string, stamp: SourceStamp): boolean;
export interface Entry {
  kind: "dist" | "source";
  url: string;
  reason: string;
}
export declare function pickEntry(root: string, name: string, env?: NodeJS.ProcessEnv): Entry;
