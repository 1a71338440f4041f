// Runs the possekit command as a user would (node bin/possekit.js …), in a folder of the test's choosing.
import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { TYPESCRIPT_HOOKS } from "../helpers/typescript.ts";

const BIN = resolve(fileURLToPath(import.meta.url), "../../../bin/possekit.js");

/** The parent's environment without anything that would change what the command does. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [
    "NODE_ENV",
    "SECRET",
    "PASSWORD",
    "WEBHOOK_SECRET",
    "DATABASE_URL",
    "PORT",
    "HOST",
    "LOG_LEVEL",
  ]) {
    delete env[name];
  }
  // POSSEKIT_SOURCE: the command runs src/, never a build in dist/ (bin/entry.js).
  return { ...env, POSSEKIT_SOURCE: "1", ...extra };
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<Finished> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [...TYPESCRIPT_HOOKS, BIN, ...args], {
      cwd: options.cwd,
      env: cleanEnv(options.env),
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once("error", fail);
    child.once("close", (code) => done({ code, stdout, stderr }));
  });
}

export interface Serving {
  url: string;
  child: ChildProcess;
  /** What stdout has printed so far. */
  stdout(): string;
  /** What stderr (the log) has printed so far. */
  stderr(): string;
  /** Resolves once stdout has printed a line matching the pattern. */
  printed(pattern: RegExp): Promise<void>;
  /** Resolves with the exit code and everything printed. */
  exited: Promise<Finished>;
  /** Sends SIGTERM (if still running) and waits for the exit. */
  stop(): Promise<Finished>;
}

/** Starts `possekit serve` (PORT=0) and waits for its "running at URL" log line. */
export function serve(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<Serving> {
  const child = spawn(process.execPath, [...TYPESCRIPT_HOOKS, BIN, "serve", ...args], {
    cwd: options.cwd,
    env: cleanEnv({ PORT: "0", LOG_LEVEL: "info", ...options.env }),
  });
  let stdout = "";
  let stderr = "";
  const waiting: Array<{ pattern: RegExp; done: () => void }> = [];
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const wait of [...waiting]) {
      if (wait.pattern.test(stdout)) {
        waiting.splice(waiting.indexOf(wait), 1);
        wait.done();
      }
    }
  });
  const exited = new Promise<Finished>((done) => {
    child.once("close", (code) => done({ code, stdout, stderr }));
  });
  return new Promise((started, fail) => {
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = /possekit is running at (http:\/\/\S+)/.exec(stderr)?.[1];
      if (!url) return;
      child.stderr.removeAllListeners("data");
      child.stderr.on("data", (more: Buffer) => {
        stderr += more.toString();
      });
      started({
        url,
        child,
        exited,
        stdout: () => stdout,
        stderr: () => stderr,
        printed: (pattern) =>
          pattern.test(stdout) ? Promise.resolve() : new Promise((done) => waiting.push({ pattern, done })),
        stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
          return exited;
        },
      });
    });
    exited.then((finished) =>
      fail(new Error(`possekit serve exited (${finished.code}) before it was running:\n${finished.stderr}`)),
    );
  });
}

export interface Talking {
  /** Resolves with stdout so far once it matches the pattern. */
  printed(pattern: RegExp): Promise<string>;
  /** Writes a line to the command's standard input. */
  type(line: string): void;
  /** Closes the standard input (the user pressed Ctrl-D). */
  endInput(): void;
  exited: Promise<Finished>;
}

/** Runs a command that asks for input: the test reads what it prints and types an answer. */
export function talkTo(args: string[], options: { cwd: string; env?: Record<string, string> }): Talking {
  const child = spawn(process.execPath, [...TYPESCRIPT_HOOKS, BIN, ...args], {
    cwd: options.cwd,
    env: cleanEnv(options.env),
  });
  let stdout = "";
  let stderr = "";
  const waiting: Array<{ pattern: RegExp; done: (text: string) => void }> = [];
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const wait of [...waiting])
      if (wait.pattern.test(stdout)) {
        waiting.splice(waiting.indexOf(wait), 1);
        wait.done(stdout);
      }
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<Finished>((done) =>
    child.once("close", (code) => done({ code, stdout, stderr })),
  );
  return {
    printed: (pattern) =>
      pattern.test(stdout)
        ? Promise.resolve(stdout)
        : Promise.race([
            new Promise<string>((done) => waiting.push({ pattern, done })),
            exited.then((finished) => {
              throw new Error(
                `the command exited (${finished.code}) first:\n${finished.stdout}\n${finished.stderr}`,
              );
            }),
          ]),
    type: (line) => child.stdin.write(`${line}\n`),
    endInput: () => child.stdin.end(),
    exited,
  };
}
