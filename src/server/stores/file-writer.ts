// What the folder and git stores share: they write files. A change is a set of files written or
// removed, applied all together or not at all.

export type FileChange = { path: string; content: string | Uint8Array } | { path: string; remove: true };

export interface FileWriter {
  /** Applies the changes as one change of the site; when it throws, nothing of it remains. */
  apply(changes: readonly FileChange[], message: string): Promise<void>;
  open?(): Promise<void>;
  describe?(): Record<string, unknown>;
}
