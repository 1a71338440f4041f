// How long this process's main thread has waited for a core, from Linux's scheduler statistics
// (/proc/self/task/<pid>/schedstat: time on a core, time runnable but waiting, in nanoseconds). On a
// machine shared with other work a timer runs late mostly while its thread waits for a core; that
// wait is the machine's load, not a hold by the code the figure measures.
import { readFileSync } from "node:fs";

const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;

export interface ThreadTimes {
  /** Milliseconds on a core. */
  ranMs: number;
  /** Milliseconds runnable but waiting for a core. */
  waitedMs: number;
}

/** The main thread's time on a core and waiting for one, so far; null off Linux. */
export function threadTimes(): ThreadTimes | null {
  try {
    const [ran, waited] = readFileSync(SCHEDSTAT, "utf8").split(" ").map(Number);
    if (!Number.isFinite(ran) || !Number.isFinite(waited)) return null;
    return { ranMs: (ran as number) / 1e6, waitedMs: (waited as number) / 1e6 };
  } catch {
    return null;
  }
}
