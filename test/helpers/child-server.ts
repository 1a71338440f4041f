// Starts the real server as a child process (`node bin/possekit.js serve --config FILE`), as it runs
// in production: a config file in a temporary folder, secrets and DATABASE_URL in the environment.
// For tests that need separate processes: several instances on one database, a SIGKILL mid-run,
// the memory of a process under hostile input.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TokenIssuer } from "../../src/server/auth/tokens.ts";
import { PACKAGE_ROOT } from "../../src/server/package-root.ts";
import { startOnAFreePort } from "./free-port.ts";
import { listensOn } from "./listening-socket.ts";
import { signInAt } from "./sign-in.ts";
import { triggerOnly } from "./trigger-only.ts";
import { TYPESCRIPT_HOOKS } from "./typescript.ts";

/** The site every child instance publishes, so that instances sharing a database agree on post URLs. */
export const SHARED_ME = "https://example.org";

export interface ChildServerOptions {
  /** The config file's content; `application.url`, `port` and `dataDir` are filled in unless given. */
  config?: Record<string, unknown>;
  /** Environment of the child, over the defaults (SECRET, PASSWORD, LOG_LEVEL=warn). */
  env?: Record<string, string>;
  /** Shared by instances that must accept each other's tokens and sessions. */
  secret?: string;
  password?: string;
  /** How long to wait for /health (default 60 s: a cold start compiles the TypeScript first). */
  startTimeoutMs?: number;
  /** The port of the first try (default: a free one); its test names one another server holds. */
  firstPort?: number;
  /** Node's and V8's flags before the script, for those NODE_OPTIONS refuses (e.g. --trace-gc). */
  nodeArgs?: string[];
  /** Every line the child writes, as it comes: `output()` keeps only the last 64 KB. */
  onLine?: (line: string) => void;
}

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ChildServer {
  url: string;
  pid: number;
  password: string;
  /** Sends `signal` (SIGTERM by default) and resolves once the process has exited. */
  kill(signal?: NodeJS.Signals): Promise<ChildExit>;
  /** SIGTERM (then SIGKILL after 10 s), and removes the temporary folder. Safe to call twice. */
  stop(): Promise<void>;
  /** Whether the process is still running. */
  alive(): boolean;
  /** Resolves when the process exits, however that happens. */
  readonly exited: Promise<ChildExit>;
  /** Resident set size of the process in bytes, from /proc/<pid>/status (Linux). */
  rss(): number;
  /** The last lines the process wrote to stdout and stderr (for failure messages). */
  output(): string;
  /** An access token the instance accepts (signed with its SECRET). */
  token(scope?: string): Promise<string>;
  /** Signs in like a browser: the session cookie and its CSRF token. */
  signIn(): Promise<{ cookie: string; csrf: string }>;
}

const OUTPUT_KEPT = 64 * 1024;

/** The resident set size of any process, in bytes, from /proc/<pid>/status. */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kilobytes = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1];
  if (kilobytes === undefined) throw new Error(`/proc/${pid}/status has no VmRSS line`);
  return Number(kilobytes) * 1024;
}

export async function startChildServer(options: ChildServerOptions = {}): Promise<ChildServer> {
  const folder = mkdtempSync(join(tmpdir(), "possekit-child-"));
  const secret = options.secret ?? randomBytes(24).toString("base64url");
  const password = options.password ?? randomBytes(9).toString("base64url");
  const fileConfig = triggerOnly(options.config ?? {});
  const application = (fileConfig.application ?? {}) as Record<string, unknown>;
  const publication = (fileConfig.publication ?? {}) as Record<string, unknown>;
  const configPath = join(folder, "possekit.config.json");

  let url = "";
  let child: ChildProcess | undefined;
  let output = "";
  let running = false;
  let exited: Promise<ChildExit> = Promise.resolve({ code: null, signal: null });
  const spawnOn = (port: number) => {
    url = `http://127.0.0.1:${port}`;
    writeFileSync(
      configPath,
      JSON.stringify({
        ...fileConfig,
        application: { url, dataDir: join(folder, "data"), ...application, port },
        publication: { me: SHARED_ME, ...publication },
      }),
    );
    const started = spawn(
      process.execPath,
      [
        ...(options.nodeArgs ?? []),
        ...TYPESCRIPT_HOOKS,
        join(PACKAGE_ROOT, "bin/possekit.js"),
        "serve",
        "--config",
        configPath,
      ],
      {
        cwd: folder,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? folder,
          NODE_ENV: "test",
          // The sources, never a build in dist/ (bin/entry.js); test plug-ins are TypeScript too.
          POSSEKIT_SOURCE: "1",
          LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "warn",
          SECRET: secret,
          PASSWORD: password,
          ...options.env,
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    if (started.pid === undefined) throw new Error("Could not start node bin/possekit.js serve");
    const keepFrom = () => {
      let partial = "";
      return (chunk: Buffer) => {
        const text = chunk.toString("utf8");
        output = (output + text).slice(-OUTPUT_KEPT);
        if (!options.onLine) return;
        const lines = (partial + text).split("\n");
        partial = lines.pop() ?? "";
        for (const line of lines) options.onLine(line);
      };
    };
    started.stdout?.on("data", keepFrom());
    started.stderr?.on("data", keepFrom());
    running = true;
    exited = new Promise<ChildExit>((resolve) => {
      started.once("exit", (code, signal) => {
        running = false;
        resolve({ code, signal });
      });
    });
    child = started;
    return started.pid;
  };

  const removeFolder = () => rmSync(folder, { recursive: true, force: true });
  const kill = async (signal: NodeJS.Signals = "SIGTERM"): Promise<ChildExit> => {
    if (running) child?.kill(signal);
    return exited;
  };

  // The child says so when another process took its port before it bound it (free-port.ts).
  const pid = await startOnAFreePort(
    async (port) => {
      const pid = spawnOn(port);
      try {
        // A hang guard, not a time budget: a first start on an embedded folder runs initdb in a child
        // (no build, no template), and on two cores shared with other work that took over 60 s.
        await waitForHealth(url, options.startTimeoutMs ?? 300_000, () => running, { pid, port });
        return pid;
      } catch (error) {
        await kill("SIGKILL");
        throw new Error(`${(error as Error).message}\nIts output:\n${output}`);
      }
    },
    {
      firstPort: options.firstPort,
      onTaken: (port) => {
        output += `\n[child-server: port ${port} was taken before the server bound it; starting again]\n`;
      },
    },
  ).catch((error: unknown) => {
    removeFolder();
    throw error;
  });

  const tokens = new TokenIssuer(secret, `${SHARED_ME}/`);
  let stopped: Promise<void> | undefined;
  return {
    url,
    pid,
    password,
    kill,
    exited,
    alive: () => running,
    rss: () => rssOf(pid),
    output: () => output,
    token: (scope = "create update") =>
      tokens.issue({ scope: scope.split(/\s+/).filter(Boolean), clientId: "test", lifetimeDays: 1 }),
    signIn: () => signInAt(url, password),
    stop() {
      stopped ??= (async () => {
        if (running) {
          child?.kill("SIGTERM");
          const timer = setTimeout(() => child?.kill("SIGKILL"), 10_000);
          await exited;
          clearTimeout(timer);
        }
        removeFolder();
      })();
      return stopped;
    },
  };
}

async function waitForHealth(
  url: string,
  timeoutMs: number,
  running: () => boolean,
  own: { pid: number; port: number },
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "no answer";
  while (Date.now() < deadline) {
    if (!running()) throw new Error(`The server at ${url} exited before it answered /health`);
    try {
      const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      // Another test's server on the port would answer too: only the child's own socket counts.
      if (response.status === 200 && listensOn(own.pid, own.port)) return;
      last = `${response.status}, ${listensOn(own.pid, own.port) ? "" : "not "}from the child's own socket`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`The server at ${url} did not answer /health within ${timeoutMs} ms (last: ${last})`);
}
