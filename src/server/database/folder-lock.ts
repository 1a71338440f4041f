// Only one process may open an embedded (PGlite) database folder: a second one corrupts it or
// wedges the first (decision 0016: the CLI beside `npm start` left the server at 100 % CPU). The
// holder writes `<folder>.lock` (its pid, and once it listens the server's URL) and removes it on
// exit; a lock whose pid is dead is taken over with a log line.
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Logger } from "../logger.ts";

interface LockContent {
  pid: number;
  url?: string;
  /**
   * The credential of the server's local routes (a backup of the folder it holds): whoever can read
   * this file, the owner's alone, could read the folder itself.
   */
  key?: string;
}

/** Another live process holds the folder. */
export class DatabaseHeldError extends Error {
  constructor(
    readonly folder: string,
    readonly pid: number,
    /** The holding server's URL, once it listens. */
    readonly url: string | undefined,
  ) {
    super(
      `The database folder ${folder} is held by the server (pid ${pid}${url ? `, ${url}` : ""}); stop it first, or ask it over HTTP`,
    );
    this.name = "DatabaseHeldError";
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readLock(path: string): LockContent | null {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<LockContent>;
    return typeof parsed.pid === "number"
      ? {
          pid: parsed.pid,
          ...(parsed.url ? { url: parsed.url } : {}),
          ...(typeof parsed.key === "string" ? { key: parsed.key } : {}),
        }
      : null;
  } catch {
    return null;
  }
}

/** Who holds `folder` now (a live process other than this one), or null. */
export function folderHolder(folder: string): LockContent | null {
  const held = readLock(`${folder}.lock`);
  return held && held.pid !== process.pid && alive(held.pid) ? held : null;
}

export class FolderLock {
  private released = false;
  private readonly onExit = () => this.release();

  private constructor(
    readonly path: string,
    private content: LockContent,
  ) {
    // A process that exits without stopping the host (an uncaught error) still lets go.
    process.once("exit", this.onExit);
  }

  /** Takes the lock on `folder`; throws DatabaseHeldError when a live process holds it. */
  static take(folder: string, logger: Logger): FolderLock {
    const path = `${folder}.lock`;
    const content: LockContent = { pid: process.pid };
    // The lock names the holder and its URL, and may be what makes the data folder: the owner's alone.
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    for (let attempt = 0; attempt < 2; attempt += 1) {
      try {
        writeFileSync(path, JSON.stringify(content), { flag: "wx", mode: 0o600 });
        return new FolderLock(path, content);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const held = readLock(path);
      if (held && held.pid !== process.pid && alive(held.pid))
        throw new DatabaseHeldError(folder, held.pid, held.url);
      logger.warn("Taking over the lock of a process that is gone", {
        lock: path,
        ...(held ? { pid: held.pid } : {}),
      });
      try {
        unlinkSync(path);
      } catch {
        // Someone else took it over first: the next attempt says who.
      }
    }
    throw new Error(`Could not take the lock ${path}; try again`);
  }

  /**
   * Names the server's URL in the lock, so that the command line can ask it over HTTP, and the
   * credential of its local routes.
   */
  setUrl(url: string, key?: string): void {
    if (this.released) return;
    this.content = { ...this.content, url, ...(key ? { key } : {}) };
    writeFileSync(this.path, JSON.stringify(this.content));
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    process.removeListener("exit", this.onExit);
    if (readLock(this.path)?.pid !== process.pid) return;
    try {
      unlinkSync(this.path);
    } catch {
      // Already gone.
    }
  }
}
