// Feeds are parsed on a thread of their own, never on the server's. A feed is the site's markup,
// and whoever can write into it (a co-author, a comment shown on the home page) chooses how long
// reading it takes: parse5 builds an HTML page of 50,000 nested <div> (550 kB) in time that grows
// with the square of its depth, 27–45 s, and on the server's thread every request (pages, webhooks,
// sign-in, /health) waited that long. Here the parse runs in a worker_thread (parse-worker.ts), with
// a time limit after which the thread is ended, and a memory limit of its own; either is the feed's
// error, in words. One thread serves every feed, one parse at a time, and ends after a while idle,
// so that a server that reads its feed every few minutes does not keep its memory.
import { Worker } from "node:worker_threads";
import type { ParseFeedInput } from "./feed-entry.ts";
import { FeedParseError, type FeedParseErrorCode } from "./feed-parse-error.ts";
import type { NewestEntries } from "./newest-entries.ts";

/** How long one parse may take: a 5 MB h-feed of 7,000 entries takes about 10 s on a busy small machine. */
export const PARSE_TIME_LIMIT_MS = 30_000;
/** The parse thread's heap: a 5 MB h-feed of 7,000 entries is read within 128 MB, not within 48. */
export const PARSE_MEMORY_LIMIT_MB = 256;
/** The thread is ended once it has had nothing to read for this long. */
const IDLE_MS = 30_000;
/**
 * How long a new thread may take to load its modules before its first read. Not counted in the
 * parse's time limit: on a busy machine the start alone took more than a second and a half, which
 * no page chooses.
 */
const START_LIMIT_MS = 60_000;
/** What the thread says once its modules are loaded, before any answer. */
export const READY = "ready";

/** One feed to read, and how many of its newest entries to hand back (newest-entries.ts). */
export interface ParseRequest {
  input: ParseFeedInput;
  maxEntries: number;
}

/** The worker's answer (an Error does not cross threads as itself: its code and message do). */
export type ParseAnswer =
  | ({ ok: true } & NewestEntries)
  | { ok: false; code: FeedParseErrorCode; message: string };

export interface FeedParserOptions {
  /** Milliseconds one parse may take; PARSE_TIME_LIMIT_MS unless a test gives a short one. */
  timeLimitMs?: number;
  /** Megabytes of heap the parse thread may use; PARSE_MEMORY_LIMIT_MB by default. */
  memoryLimitMb?: number;
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/**
 * The worker's module. Compiled (dist/), the .js beside this one. From the TypeScript: the tests'
 * hooks (`--import …/scripts/typescript/register.mjs`) are in the flags a worker inherits and load
 * it as they load this file. tsx's are not (`--import tsx` does not take in a worker on Node 20,
 * and bin/possekit.js registers tsx in-process), so there the worker registers tsx first, then
 * imports the module.
 */
function workerModule(): URL {
  const here = import.meta.url;
  if (!here.endsWith(".ts")) return new URL("./parse-worker.js", here);
  const module = new URL("./parse-worker.ts", here);
  if (process.execArgv.some((flag) => flag.includes("scripts/typescript/register"))) return module;
  const tsx = import.meta.resolve("tsx/esm/api");
  const code = `const { register } = await import(${JSON.stringify(tsx)}); register(); await import(${JSON.stringify(module.href)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}

/** A parse thread, and its start: resolved once its modules are loaded. */
interface Thread {
  worker: Worker;
  ready: Promise<void>;
}

export class FeedParser {
  readonly #timeLimitMs: number;
  readonly #memoryLimitMb: number;
  #thread: Thread | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  /** Parses one at a time: the thread answers in order, and each one's time limit is its own. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: FeedParserOptions = {}) {
    this.#timeLimitMs = options.timeLimitMs ?? PARSE_TIME_LIMIT_MS;
    this.#memoryLimitMb = options.memoryLimitMb ?? PARSE_MEMORY_LIMIT_MB;
  }

  /**
   * Reads the feed on the parse thread: its `maxEntries` newest entries, and how many it had.
   *
   * @throws FeedParseError (only): what parseFeed says, or "too-slow" / "too-large" when the read
   * passed the time or memory limit and was ended.
   * @example
   * const { feed, omitted } = await parser.parse({ body, contentType, url }, 300);
   */
  parse(input: ParseFeedInput, maxEntries: number): Promise<NewestEntries> {
    const run = () => this.#run({ input, maxEntries });
    const next = this.#queue.then(run, run);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  /** Ends the parse thread (a parse under way fails); the next parse starts another. */
  async close(): Promise<void> {
    clearTimeout(this.#idleTimer);
    const thread = this.#thread;
    this.#thread = undefined;
    await thread?.worker.terminate();
  }

  #start(): Thread {
    const worker = new Worker(workerModule(), {
      resourceLimits: { maxOldGenerationSizeMb: this.#memoryLimitMb },
      stdout: false,
      stderr: false,
    });
    // An idle thread never keeps the process alive; a parse under way holds its time limit's timer.
    worker.unref();
    const ready = new Promise<void>((resolve, reject) => {
      const settle = (outcome: () => void) => {
        clearTimeout(limit);
        worker.off("message", onMessage).off("error", onError).off("exit", onExit);
        outcome();
      };
      const onError = (error: Error) => settle(() => reject(error));
      const onMessage = (message: unknown) => {
        if (message === READY) settle(resolve);
      };
      const onExit = (code: number) =>
        settle(() => reject(new Error(`the reading thread stopped (exit code ${code})`)));
      const limit = setTimeout(
        () =>
          settle(() =>
            reject(new Error(`the reading thread did not start within ${seconds(START_LIMIT_MS)}`)),
          ),
        START_LIMIT_MS,
      );
      worker.on("message", onMessage).on("error", onError).on("exit", onExit);
    });
    return { worker, ready };
  }

  async #run(request: ParseRequest): Promise<NewestEntries> {
    clearTimeout(this.#idleTimer);
    let thread: Thread;
    try {
      thread = this.#thread ??= this.#start();
      await thread.ready;
    } catch (error) {
      if (this.#thread) this.#discard(this.#thread.worker);
      throw unreadable(error);
    }
    const worker = thread.worker;
    return new Promise<NewestEntries>((resolve, reject) => {
      const settle = (outcome: () => void, discard: boolean) => {
        clearTimeout(limit);
        worker.off("message", onMessage).off("error", onError).off("exit", onExit);
        if (discard) this.#discard(worker);
        else this.#idleLater();
        outcome();
      };
      const onMessage = (answer: ParseAnswer) =>
        settle(
          () =>
            answer.ok
              ? resolve({ feed: answer.feed, total: answer.total, omitted: answer.omitted })
              : reject(new FeedParseError(answer.code, answer.message)),
          false,
        );
      const onError = (error: Error) =>
        settle(
          () =>
            reject(
              (error as NodeJS.ErrnoException).code === "ERR_WORKER_OUT_OF_MEMORY"
                ? new FeedParseError(
                    "too-large",
                    `Reading the feed needed more than ${this.#memoryLimitMb} MB of memory, so it was stopped. possekit reads it again when it changes; if this stays, the site has to make its feed smaller (fewer or shorter entries).`,
                  )
                : unreadable(error),
            ),
          true,
        );
      const onExit = (code: number) =>
        settle(() => reject(unreadable(new Error(`the reading thread stopped (exit code ${code})`))), true);
      const limit = setTimeout(
        () =>
          settle(
            () =>
              reject(
                new FeedParseError(
                  "too-slow",
                  `Reading the feed took longer than ${seconds(this.#timeLimitMs)}, so it was stopped: its markup is too complex to read (elements nested thousands deep, for example). possekit reads it again when it changes; if this stays, the site has to simplify the page, or give the address of an RSS, Atom or JSON feed.`,
                ),
              ),
            true,
          ),
        this.#timeLimitMs,
      );
      worker.on("message", onMessage).on("error", onError).on("exit", onExit);
      worker.postMessage(request);
    });
  }

  /** Ends a thread that went wrong or ran out of time; the next parse starts a fresh one. */
  #discard(worker: Worker): void {
    if (this.#thread?.worker === worker) this.#thread = undefined;
    void worker.terminate().catch(() => undefined);
  }

  #idleLater(): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => void this.close(), IDLE_MS);
    this.#idleTimer.unref();
  }
}

function unreadable(error: unknown): FeedParseError {
  const reason = error instanceof Error ? error.message : String(error);
  return new FeedParseError("unreadable", `The feed could not be read (${reason.slice(0, 200)}).`);
}
