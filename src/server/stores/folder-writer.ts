// The folder store's writer: files written into a folder (a local checkout, a mounted volume), each
// through a temporary name and a rename, so a reader never sees half a file. A change that fails
// part-way puts back what it had already changed. No write or removal follows a symbolic link out
// of the folder (real-path.ts).
import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { StoreError } from "./content-store.ts";
import type { FileChange, FileWriter } from "./file-writer.ts";
import { assertRealPathInside } from "./real-path.ts";

/** The absolute path of a repository path under root; refuses one that would leave it. */
export function inside(root: string, path: string): string {
  const full = resolve(root, path);
  const rel = relative(root, full);
  if (rel === "" || rel.startsWith(`..${sep}`) || rel === ".." || isAbsolute(rel))
    throw new StoreError(`The path "${path}" is outside the store's folder`);
  return full;
}

async function readIfThere(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

async function writeAtomically(path: string, content: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = join(dirname(path), `.possekit-${randomBytes(6).toString("hex")}.tmp`);
  try {
    await writeFile(temporary, content);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Applies changes under root; on failure restores every file it touched and rethrows. */
export async function applyFiles(root: string, changes: readonly FileChange[]): Promise<void> {
  const before: Array<{ full: string; content: Buffer | null }> = [];
  try {
    for (const change of changes) {
      const full = inside(root, change.path);
      // Before anything is read or written: a symbolic link on the way must not lead out.
      await assertRealPathInside(root, full, change.path);
      before.push({ full, content: await readIfThere(full) });
      if ("remove" in change) await rm(full, { force: true });
      else await writeAtomically(full, change.content);
    }
  } catch (error) {
    for (const { full, content } of before.reverse()) {
      await (content === null ? rm(full, { force: true }) : writeAtomically(full, content)).catch(() => {});
    }
    throw error instanceof StoreError
      ? error
      : new StoreError(`Could not write the site's files: ${(error as Error).message}`);
  }
}

export class FolderWriter implements FileWriter {
  constructor(private readonly root: string) {}

  async apply(changes: readonly FileChange[]): Promise<void> {
    await applyFiles(this.root, changes);
  }

  describe(): Record<string, unknown> {
    return { folder: this.root };
  }
}
