// Scheduled backups (the config's `backup`): every `every`, a backup file in `folder`, the newest
// `keep` kept. The moment of the next one follows from the newest file there, so a server that
// restarts more often than `every` still makes them, and one that was down for a while makes one
// at once. Time comes from an injected clock (tests move it; production uses real timers).
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../logger.ts";

/** Calls `done` once, `ms` from now, unless the function it returns is called first. */
export type After = (ms: number, done: () => void) => () => void;

const afterRealDelay: After = (ms, done) => {
  // setTimeout holds at most 2^31-1 ms (24.8 days); a longer wait wakes up early and waits again.
  const timer = setTimeout(done, Math.min(ms, 2 ** 31 - 1));
  timer.unref();
  return () => clearTimeout(timer);
};

/** possekit-2026-11-28T10-47-02.020Z.tar.gz: sorts by time, and names no other file. */
const NAME = /^possekit-(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z)\.tar\.gz$/;
const fileName = (at: number) => `possekit-${new Date(at).toISOString().replace(/:/g, "-")}.tar.gz`;
const timeOf = (name: string) => {
  const stamp = NAME.exec(name)?.[1];
  return stamp ? Date.parse(stamp.replace(/T(\d\d)-(\d\d)-/, "T$1:$2:")) : null;
};

export interface BackupScheduleOptions {
  everyMs: number;
  keep: number;
  folder: string;
  /** Makes one backup file's bytes (Host.backup). */
  make: (now: () => number) => Promise<{ file: Buffer }>;
  logger: Logger;
  now?: () => number;
  after?: After;
}

export class BackupSchedule {
  private cancel: (() => void) | null = null;
  private stopped = false;
  private running: Promise<void> | null = null;
  private readonly now: () => number;
  private readonly after: After;

  constructor(private readonly options: BackupScheduleOptions) {
    this.now = options.now ?? Date.now;
    this.after = options.after ?? afterRealDelay;
  }

  /** The backups in the folder, oldest first, with their times. */
  backups(): Array<{ name: string; at: number }> {
    let names: string[];
    try {
      names = readdirSync(this.options.folder);
    } catch {
      return [];
    }
    return names
      .map((name) => ({ name, at: timeOf(name) }))
      .filter((each): each is { name: string; at: number } => each.at !== null)
      .sort((a, b) => a.at - b.at);
  }

  start(): void {
    this.stopped = false;
    this.plan();
  }

  /** Stops the timer and waits for a backup being written. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancel?.();
    this.cancel = null;
    await this.running;
  }

  private plan(): void {
    if (this.stopped) return;
    const newest = this.backups().at(-1)?.at;
    const due = newest === undefined ? this.now() : newest + this.options.everyMs;
    const wait = Math.max(0, due - this.now());
    this.cancel = this.after(wait, () => {
      this.cancel = null;
      // A timer cut short (longer than setTimeout holds) finds nothing due yet and plans again.
      if (this.now() < due) {
        this.plan();
        return;
      }
      this.running = this.backUp().finally(() => {
        this.running = null;
        this.plan();
      });
    });
  }

  /** Writes one backup now, then removes the oldest beyond `keep`. */
  async backUp(): Promise<void> {
    const at = this.now();
    try {
      const { file } = await this.options.make(() => at);
      mkdirSync(this.options.folder, { recursive: true, mode: 0o700 });
      const path = join(this.options.folder, fileName(at));
      writeFileSync(`${path}.partial`, file, { mode: 0o600 });
      renameSync(`${path}.partial`, path);
      const all = this.backups();
      for (const old of all.slice(0, Math.max(0, all.length - this.options.keep)))
        rmSync(join(this.options.folder, old.name), { force: true });
      this.options.logger.info("Backup written", { file: path, bytes: file.length });
    } catch (error) {
      this.options.logger.error("The scheduled backup failed", {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
