// Figure (decision 0029): the footprint of the package a user installs. scripts/pack-check.mjs packs it
// and installs it into an empty folder; everything below runs that installed copy (compiled
// JavaScript, no TypeScript loader): memory at idle with 1,000 posts, after a batch of 1,000, at
// the first start; the wall time of --help, token and of a start to the first /health 200; the
// sizes of the tarball and of a production install. Besides, `npm start` in a copy of this clone
// with no configuration file: the README's first command, timed to the first /health 200.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { TokenIssuer } from "../../src/server/auth/tokens.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { openPglite } from "../../src/server/database/pglite.ts";
import { PACKAGE_ROOT } from "../../src/server/package-root.ts";
import { postMigrations } from "../../src/server/posts/migrations.ts";
import { syndicationMigrations } from "../../src/syndication/migrations.ts";
import { freePort } from "../../test/helpers/server.ts";
import type { BenchContext } from "../lib/context.ts";
import type { FigureRow, FigureSection } from "../lib/report.ts";
import { seedPosts } from "../lib/seed.ts";
import { megabytes, sleep } from "../lib/stats.ts";

const MB = 1024 * 1024;
const SECRET = "footprint-bench-secret-0123456789abcdef";
const ME = "https://example.org/";
const TARGET_UID = "https://instant.example/@bench";
const INSTANT_TARGET = join(PACKAGE_ROOT, "bench", "fixtures", "instant-target.mjs");
const MEMORY_PROBE = pathToFileURL(join(PACKAGE_ROOT, "bench", "fixtures", "memory-probe.mjs")).href;

interface Packed {
  tarball: number;
  unpacked: number;
  files: number;
  install: number;
  app: string;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

function status(pid: number, field: "VmRSS" | "VmHWM"): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(
      readFileSync(`/proc/${pid}/status`, "utf8"),
    );
    return match?.[1] ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The pids whose parent is `pid` (from /proc/<n>/stat). */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) found.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

const GNU_TIME = "/usr/bin/time";

/**
 * Wall time of a command (`[file, ...args]`, possekit itself run through its #! line as a user runs
 * it), in ms, and its CPU time (user + system, from GNU time where there is one): on a machine
 * shared with other work the wall time waits for a core, the CPU time does not.
 */
function timeCommand(command: string[], cwd: string, env: NodeJS.ProcessEnv): { wall: number; cpu: number } {
  const [file = process.execPath, ...args] = command;
  const report = join(cwd, ".time");
  const timed = existsSync(GNU_TIME);
  const started = performance.now();
  if (timed)
    execFileSync(GNU_TIME, ["-o", report, "-f", "%U %S", file, ...args], {
      cwd,
      env,
      stdio: "ignore",
    });
  else execFileSync(file, args, { cwd, env, stdio: "ignore" });
  const wall = performance.now() - started;
  const [user = Number.NaN, system = Number.NaN] = timed
    ? readFileSync(report, "utf8").trim().split(/\s+/).map(Number)
    : [];
  return { wall, cpu: (user + system) * 1000 };
}

const medianOf = (runs: number, measure: () => { wall: number; cpu: number }) => {
  const samples = Array.from({ length: runs }, measure);
  return { wall: median(samples.map((s) => s.wall)), cpu: median(samples.map((s) => s.cpu)) };
};

interface Started {
  child: ChildProcess;
  url: string;
  startMs: number;
  /** The largest VmHWM seen of a child process (initdb's) while starting. */
  childPeak: number;
  stderr: () => string;
}

function writeConfig(dir: string, port: number, database: string, withTarget: boolean): string {
  const path = join(dir, "possekit.config.json");
  writeFileSync(
    path,
    JSON.stringify({
      application: {
        port,
        host: "127.0.0.1",
        url: `http://127.0.0.1:${port}`,
        dataDir: join(dir, "data"),
        database,
        rateLimit: { authenticated: 1_000_000, public: 1_000_000 },
      },
      publication: { me: ME },
      plugins: ["@possekit/endpoint-syndicate", ...(withTarget ? [INSTANT_TARGET] : [])],
      "@possekit/endpoint-syndicate": { schedule: { enabled: false } },
      ...(withTarget ? { [INSTANT_TARGET]: { uid: TARGET_UID } } : {}),
    }),
  );
  return path;
}

async function startServer(
  bin: string,
  dir: string,
  database: string,
  withTarget: boolean,
): Promise<Started> {
  const port = await freePort();
  const config = writeConfig(dir, port, database, withTarget);
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  // The command as a user runs it (npx possekit serve): through its #! line, with Node's flags.
  const child = spawn(bin, ["serve", "--config", config], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? "",
      SECRET,
      PASSWORD: "footprint-bench",
      LOG_LEVEL: "error",
      NODE_OPTIONS: `--import ${MEMORY_PROBE}`,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    stderr += chunk;
  });
  let childPeak = 0;
  let polls = 0;
  await untilHealthy(
    child,
    url,
    () => stderr,
    () => {
      if (child.pid && polls % 2 === 0)
        for (const pid of childrenOf(child.pid)) childPeak = Math.max(childPeak, status(pid, "VmHWM"));
      polls += 1;
    },
  );
  return { child, url, startMs: performance.now() - started, childPeak, stderr: () => stderr };
}

/** Polls `url`/health every 25 ms until it answers 200; `each` runs before every poll. */
async function untilHealthy(
  child: ChildProcess,
  url: string,
  stderr: () => string,
  each: () => void = () => {},
): Promise<void> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`The server exited ${child.exitCode}:\n${stderr()}`);
    if (Date.now() > deadline) throw new Error(`No /health 200 in 180 s:\n${stderr()}`);
    each();
    try {
      if ((await fetch(`${url}/health`)).status === 200) return;
    } catch {
      // Not listening yet.
    }
    await sleep(25);
  }
}

/**
 * A clone as a newcomer has it after `npm install`: the sources with dist/ built from them (their
 * times kept, so the check that dist/ is current reads no file), node_modules shared.
 */
function cloneAfterInstall(dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const name of [...CLONE_FILES, "dist"])
    cpSync(join(PACKAGE_ROOT, name), join(dir, name), { recursive: true, preserveTimestamps: true });
  symlinkSync(join(PACKAGE_ROOT, "node_modules"), join(dir, "node_modules"));
}

const CLONE_FILES = [
  "package.json",
  "bin",
  "src",
  "views",
  "locales",
  "public",
  "tsconfig.json",
  "tsconfig.build.json",
];

/** `npm start` in `dir` with no configuration file (the README's first command), to the first /health 200. */
async function npmStart(dir: string): Promise<{ ms: number; runs: string }> {
  const port = await freePort();
  const started = performance.now();
  // Its own process group: npm runs a shell that runs node, and all of them are stopped together.
  const child = spawn("npm", ["start"], {
    cwd: dir,
    // POSSEKIT_DEBUG_ENTRY: the command says which code it runs (dist/, or src/ through tsx).
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? dir,
      PORT: String(port),
      POSSEKIT_DEBUG_ENTRY: "1",
    },
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    stderr += chunk;
  });
  try {
    await untilHealthy(child, `http://127.0.0.1:${port}`, () => stderr);
    const ms = performance.now() - started;
    return { ms, runs: /possekit: runs (\w+)/.exec(stderr)?.[1] ?? "unknown code" };
  } finally {
    if (child.exitCode === null && child.pid) {
      const exited = new Promise((done) => child.once("exit", done));
      process.kill(-child.pid, "SIGTERM");
      await exited;
    }
  }
}

async function stopServer(server: Started): Promise<void> {
  if (server.child.exitCode !== null) return;
  const exited = new Promise((done) => server.child.once("exit", done));
  server.child.kill("SIGTERM");
  await exited;
}

/** The server's own memory split, from the preloaded probe (SIGUSR2). */
async function memorySplit(server: Started): Promise<NodeJS.MemoryUsage> {
  const before = server.stderr().length;
  server.child.kill("SIGUSR2");
  for (let i = 0; i < 100; i += 1) {
    const line = /POSSEKIT_MEMORY (\{.*\})/.exec(server.stderr().slice(before))?.[1];
    if (line) return JSON.parse(line) as NodeJS.MemoryUsage;
    await sleep(20);
  }
  throw new Error("The memory probe did not answer");
}

const split = (usage: NodeJS.MemoryUsage, rss: number) =>
  `heap ${megabytes(usage.heapUsed)} used of ${megabytes(usage.heapTotal)}; external ${megabytes(usage.external)} ` +
  `(WebAssembly memory ${megabytes(usage.external - usage.arrayBuffers)}, array buffers ${megabytes(usage.arrayBuffers)}); ` +
  `the rest ${megabytes(rss - usage.heapTotal - usage.external)} (compiled code of V8 and WebAssembly, Node itself)`;

async function seedFolder(folder: string, posts: number): Promise<void> {
  const database = await openPglite(folder);
  await migrate(database, [...postMigrations, ...syndicationMigrations]);
  await seedPosts(database, { count: posts, targets: [TARGET_UID], awaitEvery: 1 });
  await database.close();
}

export async function footprint(context: BenchContext): Promise<FigureSection> {
  const runs = context.quick ? 3 : 5;
  const work = join(context.workDir, "footprint");
  mkdirSync(work, { recursive: true });
  context.log("footprint: npm pack and a production install (scripts/pack-check.mjs)");
  const packedLine = execFileSync(
    process.execPath,
    [join(PACKAGE_ROOT, "scripts", "pack-check.mjs"), "--keep", join(work, "pack")],
    {
      cwd: PACKAGE_ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    },
  )
    .trim()
    .split("\n")
    .at(-1);
  const packed = JSON.parse(packedLine ?? "{}") as Packed;
  const bin = join(packed.app, "node_modules", "@possekit", "endpoint-syndicate", "bin", "possekit.js");
  const rows: FigureRow[] = [];
  const row = (r: Omit<FigureRow, "engine"> & { engine?: string }) => rows.push({ engine: "-", ...r });

  // Start-up of the commands that need no server.
  const cliDir = join(work, "cli");
  mkdirSync(cliDir, { recursive: true });
  const env = { PATH: process.env.PATH ?? "", SECRET, PASSWORD: "footprint-bench" };
  for (const [command, args] of [
    ["possekit --help", ["--help"]],
    ["possekit token", ["token"]],
  ] as const) {
    context.log(`footprint: ${command}, ${runs} times`);
    timeCommand([bin, ...args], cliDir, env);
    const installed = medianOf(runs, () => timeCommand([bin, ...args], cliDir, env));
    const source = medianOf(runs, () =>
      timeCommand([join(PACKAGE_ROOT, "bin", "possekit.js"), ...args], cliDir, {
        ...env,
        POSSEKIT_SOURCE: "1",
      }),
    );
    const bare = medianOf(runs, () => timeCommand([process.execPath, "-e", "0"], cliDir, env));
    row({
      figure: `Wall time of \`${command}\`, installed package (median of ${runs})`,
      measured: `${installed.wall.toFixed(0)} ms (CPU ${installed.cpu.toFixed(0)} ms)`,
      value: installed.wall,
      unit: "ms",
      goal: "< 150 ms",
      verdict: installed.wall < 150 ? "PASS" : "MISS",
      note:
        `the same from the TypeScript through tsx (a clone with edited sources): ${source.wall.toFixed(0)} ms ` +
        `(CPU ${source.cpu.toFixed(0)} ms); \`node -e 0\` on this machine now: ${bare.wall.toFixed(0)} ms ` +
        `(CPU ${bare.cpu.toFixed(0)} ms), the floor`,
    });
  }

  // First starts: an empty folder each time; the server's own peak and its initdb child's.
  context.log(`footprint: first start on an empty folder, ${runs} times`);
  const first: Array<{ ms: number; peak: number; childPeak: number }> = [];
  for (let i = 0; i < runs; i += 1) {
    const dir = join(work, `first-${i}`);
    mkdirSync(dir, { recursive: true });
    const server = await startServer(bin, dir, join(dir, "data", "db"), false);
    first.push({
      ms: server.startMs,
      peak: status(server.child.pid ?? 0, "VmHWM"),
      childPeak: server.childPeak,
    });
    await stopServer(server);
    rmSync(dir, { recursive: true, force: true });
  }
  const firstPeak = Math.max(...first.map((f) => f.peak));
  const initdbPeak = Math.max(...first.map((f) => f.childPeak));
  row({
    figure: "Peak RSS of the first start on an empty folder: the server",
    engine: "PGlite",
    measured: megabytes(firstPeak),
    value: firstPeak,
    unit: "bytes",
    goal: "≤ 450 MB",
    verdict: firstPeak <= 450 * MB ? "PASS" : "MISS",
    note: `VmHWM of the server process, largest of ${runs}; initdb runs in a child process that exits`,
  });
  row({
    figure: "Peak RSS of the first start: an initdb child process, if any",
    engine: "PGlite",
    measured: megabytes(initdbPeak),
    value: initdbPeak,
    unit: "bytes",
    goal: "≤ 450 MB",
    verdict: initdbPeak <= 450 * MB ? "PASS" : "MISS",
    note:
      "VmHWM of any child, polled every ~50 ms until the server answers: none (0 B) when the first start copies " +
      "the empty database the package ships (dist/pgdata-pglite-<version>.tar.br); initdb runs in a child only without it",
  });
  const firstMs = median(first.map((f) => f.ms));
  row({
    figure: `Start to first /health 200, first start (median of ${runs})`,
    engine: "PGlite",
    measured: `${firstMs.toFixed(0)} ms`,
    value: firstMs,
    unit: "ms",
    goal: "-",
    verdict: "INFO",
    note: "copies the shipped empty database (or runs initdb without one) and applies the migrations",
  });

  // Warm starts, idle memory and a batch: a folder with 1,000 awaiting posts.
  const warmDir = join(work, "warm");
  mkdirSync(warmDir, { recursive: true });
  const folder = join(warmDir, "db");
  context.log("footprint: 1,000 posts, warm starts, idle memory, a batch");
  await seedFolder(folder, 1_000);
  const warm: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const server = await startServer(bin, warmDir, folder, true);
    warm.push(server.startMs);
    await stopServer(server);
  }
  const warmMs = median(warm);
  row({
    figure: `Start to first /health 200, warm, installed \`possekit serve\` (median of ${runs})`,
    engine: "PGlite",
    measured: `${warmMs.toFixed(0)} ms`,
    value: warmMs,
    unit: "ms",
    goal: "< 1.5 s",
    verdict: warmMs < 1500 ? "PASS" : "MISS",
    note: `all: ${warm.map((ms) => ms.toFixed(0)).join(", ")} ms; 1,000 posts, one instant target, the scheduler off`,
  });

  // The README's first command as a newcomer runs it: npm start in a clone, no configuration file
  // (the scheduler on, the syndication plug-in's defaults), an empty database made by the first start.
  context.log(`footprint: npm start in a clone with the default configuration, ${runs + 1} times`);
  const cloneDir = join(work, "clone");
  cloneAfterInstall(cloneDir);
  const npmFirst = await npmStart(cloneDir);
  const npmStarts = [npmFirst];
  for (let i = 0; i < runs; i += 1) npmStarts.push(await npmStart(cloneDir));
  const npmWarm = npmStarts.slice(1).map((start) => start.ms);
  const npmRuns = [...new Set(npmStarts.map((start) => start.runs))].join(" and ");
  const npmWarmMs = median(npmWarm);
  row({
    figure: `\`npm start\` in a clone, default configuration, to first /health 200, warm (median of ${runs})`,
    engine: "PGlite",
    measured: `${npmWarmMs.toFixed(0)} ms`,
    value: npmWarmMs,
    unit: "ms",
    goal: "< 1.5 s",
    verdict: npmWarmMs < 1500 ? "PASS" : "MISS",
    note: `all: ${npmWarm.map((ms) => ms.toFixed(0)).join(", ")} ms; the first start (an empty database copied from the template): ${npmFirst.ms.toFixed(0)} ms; it runs ${npmRuns}; npm itself and its shell are part of it`,
  });

  const server = await startServer(bin, warmDir, folder, true);
  try {
    await sleep(10_000);
    const pid = server.child.pid ?? 0;
    const idle = status(pid, "VmRSS");
    const idleSplit = await memorySplit(server);
    row({
      figure: "Idle RSS 10 s after start, 1,000 posts",
      engine: "PGlite",
      measured: megabytes(idle),
      value: idle,
      unit: "bytes",
      goal: "≤ 200 MB",
      verdict: idle <= 200 * MB ? "PASS" : "MISS",
      note: split(idleSplit, idle),
    });
    const token = await new TokenIssuer(SECRET, ME).issue({
      scope: ["update"],
      clientId: "footprint-bench",
      lifetimeDays: 1,
    });
    const started = performance.now();
    const response = await fetch(`${server.url}/syndicate`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
    });
    const body = (await response.json()) as { summary?: { syndicated?: number } };
    const batchMs = performance.now() - started;
    if (body.summary?.syndicated !== 1_000)
      throw new Error(`The batch syndicated ${JSON.stringify(body.summary)} of 1,000 posts`);
    const after = status(pid, "VmRSS");
    const afterSplit = await memorySplit(server);
    row({
      figure: "RSS after a batch of 1,000 posts",
      engine: "PGlite",
      measured: `${megabytes(after)} (+${megabytes(after - idle)})`,
      value: after,
      unit: "bytes",
      goal: "within 50 MB of idle",
      verdict: after - idle <= 50 * MB ? "PASS" : "MISS",
      note: `the batch took ${(batchMs / 1000).toFixed(1)} s; peak during it ${megabytes(status(pid, "VmHWM"))}; ${split(afterSplit, after)}`,
    });
  } finally {
    await stopServer(server);
  }

  row({
    figure: "Size of the packed tarball",
    measured: megabytes(packed.tarball),
    value: packed.tarball,
    unit: "bytes",
    goal: "-",
    verdict: "INFO",
    note: `${packed.files} files, ${megabytes(packed.unpacked)} unpacked; no tests, bench, sources or screenshots (scripts/pack-check.mjs)`,
  });
  row({
    figure: "Size of a production install of the tarball",
    measured: megabytes(packed.install),
    value: packed.install,
    unit: "bytes",
    goal: "-",
    verdict: "INFO",
    note: "node_modules of an empty folder after npm install <tarball> --omit=dev: no TypeScript, tsx or esbuild",
  });
  return {
    id: "footprint",
    title: "Footprint of the installed package",
    method:
      "scripts/pack-check.mjs packs the package (npm pack builds dist/) and installs the tarball into an empty " +
      "folder with --omit=dev; every figure runs that copy (compiled JavaScript) as its own process. Times are " +
      "wall times from spawn (commands: to exit; the server: to the first 200 from /health). RSS is VmRSS and " +
      "VmHWM from /proc; the split comes from process.memoryUsage() in the server, read by a preloaded probe " +
      "on SIGUSR2. The 1,000 posts are bulk-inserted into the folder before the start, each awaiting an " +
      "instant target (bench/fixtures/instant-target.mjs); the batch is one POST /syndicate.",
    rows,
    details: [],
    data: { packed, first, warm, npmFirst, npmWarm },
  };
}
