// Starts the real server as a child process (`node bin/possekit.js serve`), for figures that need a
// process of its own: one to kill mid-run, several instances on one database, a server that does
// not share its event loop with the clients measuring it.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { PACKAGE_ROOT } from "../../src/server/package-root.ts";
import { freePort } from "../../test/helpers/server.ts";
import { sleep } from "./stats.ts";

const BIN = join(PACKAGE_ROOT, "bin", "possekit.js");
export const DELAY_SYNDICATOR = join(PACKAGE_ROOT, "bench", "fixtures", "delay-syndicator.ts");
const ENDPOINT_PACKAGE = "@possekit/endpoint-syndicate";
const STDERR_KEPT = 8_000;

/** Every child still running, so that a bench that stops on an error leaves none behind. */
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) if (child.exitCode === null && child.pid) process.kill(child.pid, "SIGKILL");
});

export type ChildDatabase = { kind: "pglite"; folder: string } | { kind: "postgres"; url: string };

export interface ChildServerOptions {
  /** A folder of its own for the config file and generated files. */
  dir: string;
  database: ChildDatabase;
  /** Shared by instances that must accept each other's tokens. */
  secret: string;
  /** Options of the syndication endpoint plug-in (leaseMs, …). */
  endpoint?: Record<string, unknown>;
  /** Options of the bench delay target; absent: no target installed. */
  delayTarget?: { uid: string; delayMs: number };
}

export interface ChildServer {
  url: string;
  pid: number;
  /** Milliseconds from spawn until /health answered 200. */
  startupMs: number;
  /** Resolves with the exit code (null after a signal) once the process has ended. */
  exited: Promise<number | null>;
  /** The end of what the server wrote to stderr, for error messages. */
  stderrTail(): string;
  kill(signal: NodeJS.Signals): void;
  /** SIGTERM (the server finishes its current post and releases the lease), then waits for the exit. */
  stop(): Promise<void>;
}

function writeConfig(options: ChildServerOptions, port: number): string {
  const plugins = [ENDPOINT_PACKAGE, ...(options.delayTarget ? [DELAY_SYNDICATOR] : [])];
  const config: Record<string, unknown> = {
    application: {
      port,
      host: "127.0.0.1",
      url: `http://127.0.0.1:${port}`,
      dataDir: join(options.dir, "data"),
      ...(options.database.kind === "pglite" ? { database: options.database.folder } : {}),
      // The figures send hundreds of requests a minute from one client; the default limit (300 a
      // minute) is for the public internet, not for a benchmark.
      rateLimit: { authenticated: 1_000_000, public: 1_000_000 },
    },
    // One site for every instance, so that a token issued for one is accepted by the others.
    publication: { me: "https://bench.example" },
    plugins,
    // Trigger-only unless a figure asks for the scheduler: the figures measure one run at a time.
    [ENDPOINT_PACKAGE]: { schedule: { enabled: false }, ...options.endpoint },
    ...(options.delayTarget
      ? { [DELAY_SYNDICATOR]: { uid: options.delayTarget.uid, delayMs: options.delayTarget.delayMs } }
      : {}),
  };
  const path = join(options.dir, "possekit.config.json");
  writeFileSync(path, JSON.stringify(config, null, 2));
  return path;
}

function childEnv(options: ChildServerOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SECRET: options.secret,
    PASSWORD: "bench-password-not-used",
    LOG_LEVEL: "error",
    // These figures measure the sources (and load the TypeScript delay target); the footprint
    // figure measures the compiled package instead.
    POSSEKIT_SOURCE: "1",
  };
  delete env.DATABASE_URL;
  if (options.database.kind === "postgres") env.DATABASE_URL = options.database.url;
  return env;
}

async function waitForHealth(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`The child server exited with ${child.exitCode} while starting:\n${stderr()}`);
    try {
      const response = await fetch(`${url}/health`);
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await sleep(50);
  }
  throw new Error(`The child server did not answer /health within 90 s:\n${stderr()}`);
}

export async function startChildServer(options: ChildServerOptions): Promise<ChildServer> {
  const port = await freePort();
  const configPath = writeConfig(options, port);
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, "serve", "--config", configPath], {
    env: childEnv(options),
    stdio: ["ignore", "ignore", "pipe"],
  });
  running.add(child);
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEPT);
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => {
      running.delete(child);
      resolve(code);
    });
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(url, child, () => stderr);
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error("The child server has no process id");
  return {
    url,
    pid,
    startupMs: performance.now() - started,
    exited,
    stderrTail: () => stderr,
    kill: (signal) => {
      if (child.exitCode === null) process.kill(pid, signal);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(pid, "SIGTERM");
      const timeout = sleep(30_000).then(() => "timeout" as const);
      if ((await Promise.race([exited, timeout])) === "timeout") {
        process.kill(pid, "SIGKILL");
        await exited;
      }
    },
  };
}

/** An access token from `possekit token`, valid on every instance started with `secret`. */
export async function issueToken(options: ChildServerOptions, scope = "create update"): Promise<string> {
  const configPath = join(options.dir, "possekit.config.json");
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [BIN, "token", "--config", configPath, "--scope", scope, "--days", "1"],
    { env: childEnv(options) },
  );
  const token = stdout.trim();
  if (!token) throw new Error("possekit token printed nothing");
  return token;
}
