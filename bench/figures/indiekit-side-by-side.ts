// Figure (decision 0056): possekit beside Indiekit, on the figures users compare us on. Both run as their
// users run them, each in a process of its own on this machine: possekit as `possekit serve` (its
// #! line's Node flags; the compiled package when built, else the sources through tsx) with the
// folder store and the embedded database; Indiekit 1.0.0-beta.29 as `indiekit serve` under Node 24
// (interop/indiekit/install.ts installs it, and Node 24, into a cache the first time) with its
// file-system store and no MongoDB (none can be installed here; Indiekit runs without it). Figures:
// the start-up (spawn to the first answer over HTTP), the idle RSS some seconds after, and a Micropub
// create until its file is in the site's folder.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { indiekitToken, installIndiekitWithOurPackage, ME } from "../../interop/indiekit/indiekit.ts";
import { PACKAGE_ROOT } from "../../src/server/package-root.ts";
import { freePort } from "../../test/helpers/server.ts";
import type { BenchContext } from "../lib/context.ts";
import type { FigureRow, FigureSection } from "../lib/report.ts";
import { distribution, megabytes, ms, sleep } from "../lib/stats.ts";

const BIN = join(PACKAGE_ROOT, "bin", "possekit.js");
/** What Indiekit answers at /robots.txt (packages/indiekit/lib/routes.js): its own answer, not another's. */
const INDIEKIT_ROBOTS = "User-agent: *\nDisallow: /";

interface Product {
  name: "possekit" | "Indiekit";
  /** Spawns the server on `port` in `dir`; the site's files go to `siteDir`. */
  spawn(dir: string, siteDir: string, port: number): ChildProcess;
  /** True once the server gives its own first answer. */
  answers(url: string): Promise<boolean>;
  /** A bearer token with the create scope. */
  token(dir: string): Promise<string>;
  runtime: string;
}

interface Started {
  child: ChildProcess;
  url: string;
  startupMs: number;
  output(): string;
}

async function start(product: Product, dir: string, siteDir: string): Promise<Started> {
  mkdirSync(siteDir, { recursive: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const began = performance.now();
  const child = product.spawn(dir, siteDir, port);
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`${product.name} exited with ${child.exitCode} while starting: ${output.trim()}`);
    if (await product.answers(url).catch(() => false))
      return { child, url, startupMs: performance.now() - began, output: () => output };
    await sleep(20);
  }
  child.kill("SIGKILL");
  throw new Error(`${product.name} did not answer within 120 s: ${output.trim()}`);
}

async function stop(started: Started): Promise<void> {
  const { child } = started;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  if ((await Promise.race([exited, sleep(15_000).then(() => "timeout")])) === "timeout") {
    child.kill("SIGKILL");
    await exited;
  }
}

/** Resident memory of a process, from /proc (bytes). */
function rss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB/m);
  if (!line?.[1]) throw new Error(`no VmRSS for process ${pid}`);
  return Number(line[1]) * 1024;
}

/** Every file under `folder`, relative paths. */
function files(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** A Micropub create (form-encoded, as most clients send it) until its file is in the site's folder. */
async function createToFile(url: string, token: string, siteDir: string, n: number): Promise<number> {
  const before = new Set(files(siteDir));
  const began = performance.now();
  const response = await fetch(`${url}/micropub`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ h: "entry", content: `Side by side ${n}`, "mp-slug": `side-${n}` }),
  });
  const body = await response.text();
  if (response.status !== 201 && response.status !== 202)
    throw new Error(`Micropub create answered ${response.status}: ${body.slice(0, 300)}`);
  // Polled, not slept: the file may be written after the answer.
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(2)) {
    const added = files(siteDir).filter((file) => !before.has(file));
    if (added.some((file) => readFileSync(file, "utf8").includes(`Side by side ${n}`)))
      return performance.now() - began;
  }
  throw new Error(
    `Micropub create answered ${response.status} but no file holding the post appeared within 10 s`,
  );
}

const possekit: Product = {
  name: "possekit",
  runtime: `Node ${process.version}`,
  spawn(dir, siteDir, port) {
    const config = {
      application: {
        port,
        host: "127.0.0.1",
        url: `http://127.0.0.1:${port}`,
        dataDir: join(dir, "data"),
        rateLimit: { authenticated: 1_000_000, public: 1_000_000 },
      },
      publication: { me: ME, store: { type: "folder", path: siteDir }, preset: "jekyll" },
    };
    writeFileSync(join(dir, "possekit.config.json"), JSON.stringify(config, null, 2));
    return spawn(BIN, ["serve", "--config", join(dir, "possekit.config.json")], {
      env: { PATH: process.env.PATH ?? "", SECRET: "side-by-side-secret", LOG_LEVEL: "error" },
      stdio: ["ignore", "pipe", "pipe"],
    });
  },
  async answers(url) {
    const response = await fetch(`${url}/health`);
    await response.arrayBuffer();
    return response.status === 200;
  },
  async token(dir) {
    const { stdout } = await promisify(execFile)(
      BIN,
      ["token", "--config", join(dir, "possekit.config.json"), "--scope", "create", "--days", "1"],
      { env: { PATH: process.env.PATH ?? "", SECRET: "side-by-side-secret" } },
    );
    return stdout.trim();
  },
};

function indiekit(node: string, root: string, secret: string): Product {
  return {
    name: "Indiekit",
    runtime: "Node 24 (Indiekit needs ≥ 24.17)",
    spawn(dir, siteDir, port) {
      const config = {
        application: { name: "Indiekit side by side" },
        plugins: ["@indiekit/store-file-system"],
        publication: {
          me: ME,
          postTypes: { note: { post: { path: "notes/{slug}.md", url: "notes/{slug}/" } } },
        },
        "@indiekit/store-file-system": { directory: siteDir },
      };
      const path = join(dir, "indiekit.config.js");
      writeFileSync(path, `export default ${JSON.stringify(config, null, 2)};\n`);
      return spawn(
        node,
        [join(root, "packages/indiekit/bin/cli.js"), "--config", path, "serve", "--port", String(port)],
        {
          cwd: dir,
          env: {
            PATH: process.env.PATH ?? "",
            NODE_ENV: "production",
            SECRET: secret,
            PASSWORD_SECRET: "$2a$10$not.a.real.bcrypt.hash.but.a.set.password.secret",
          },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
    },
    async answers(url) {
      const response = await fetch(`${url}/robots.txt`);
      return response.ok && (await response.text()) === INDIEKIT_ROBOTS;
    },
    token: () => indiekitToken(secret, "create"),
  };
}

interface ProductFigures {
  startupMs: number[];
  idleRss: number;
  create: number[] | { error: string };
  runtime: string;
}

async function measureProduct(
  context: BenchContext,
  product: Product,
  starts: number,
  idleMs: number,
  creates: number,
): Promise<ProductFigures> {
  const startupMs: number[] = [];
  let idleRss = 0;
  let create: number[] | { error: string } = [];
  for (let round = 0; round < starts; round += 1) {
    // The first start on an empty folder (possekit makes its database then), the others warm: the
    // same folders again, as a restart finds them.
    const dir = join(context.workDir, `side-by-side-${product.name}`);
    mkdirSync(dir, { recursive: true });
    const siteDir = join(dir, "site");
    context.log(`side by side: ${product.name} start ${round + 1} of ${starts}`);
    const started = await start(product, dir, siteDir);
    try {
      startupMs.push(started.startupMs);
      if (round !== starts - 1) continue;
      await sleep(idleMs);
      const pid = started.child.pid;
      if (pid === undefined) throw new Error(`${product.name} has no process id`);
      idleRss = rss(pid);
      context.log(`side by side: ${creates} Micropub creates on ${product.name}`);
      try {
        const token = await product.token(dir);
        await createToFile(started.url, token, siteDir, 0); // warm-up
        const samples: number[] = [];
        for (let n = 1; n <= creates; n += 1)
          samples.push(await createToFile(started.url, token, siteDir, n));
        create = samples;
      } catch (error) {
        create = { error: error instanceof Error ? error.message : String(error) };
      }
    } finally {
      await stop(started);
    }
  }
  return { startupMs, idleRss, create, runtime: product.runtime };
}

export async function indiekitSideBySide(context: BenchContext): Promise<FigureSection> {
  const starts = context.quick ? 2 : 5;
  const idleMs = context.quick ? 3_000 : 10_000;
  const creates = context.quick ? 5 : 30;
  const measured: Partial<Record<Product["name"], ProductFigures | { error: string }>> = {};
  measured.possekit = await measureProduct(context, possekit, starts, idleMs, creates).catch((error) => ({
    error: String(error instanceof Error ? error.message : error),
  }));
  try {
    context.log("side by side: installing Indiekit and Node 24 (cached after the first time)");
    const installed = installIndiekitWithOurPackage();
    measured.Indiekit = await measureProduct(
      context,
      indiekit(installed.node, installed.indiekitRoot, randomBytes(24).toString("base64url")),
      starts,
      idleMs,
      creates,
    );
  } catch (error) {
    measured.Indiekit = { error: String(error instanceof Error ? error.message.split("\n")[0] : error) };
  }
  const rows: FigureRow[] = [];
  for (const name of ["possekit", "Indiekit"] as const) {
    const figures = measured[name];
    const info = (figure: string, value: number | null, measuredText: string, unit: string, note: string) =>
      rows.push({
        figure: `${name}: ${figure}`,
        engine: name === "possekit" ? "PGlite" : "none (no MongoDB)",
        measured: measuredText,
        value,
        unit,
        goal: "-",
        verdict: value === null ? "SKIP" : "INFO",
        note,
      });
    if (!figures || "error" in figures) {
      const reason = figures?.error ?? "not measured";
      info("start-up, spawn to first answer, warm (median)", null, "-", "ms", reason);
      info("first start on an empty folder", null, "-", "ms", reason);
      info(`idle RSS ${idleMs / 1000} s after start`, null, "-", "MB", reason);
      info("Micropub create → file in the site's folder (median)", null, "-", "ms", reason);
      continue;
    }
    const [first = Number.NaN, ...warm] = figures.startupMs;
    const startup = distribution(warm.length > 0 ? warm : [first]);
    info(
      "start-up, spawn to first answer, warm (median)",
      startup.median,
      ms(startup.median),
      "ms",
      `${figures.runtime}; ${warm.length} starts on the folders an earlier start left, ${ms(startup.min)}–${ms(startup.max)}`,
    );
    info(
      "first start on an empty folder",
      first,
      ms(first),
      "ms",
      name === "possekit"
        ? "the embedded database is made (initdb and migrations) before the first answer"
        : "Indiekit keeps nothing of its own without MongoDB: its first start is like any other",
    );
    info(
      `idle RSS ${idleMs / 1000} s after start`,
      figures.idleRss / 1024 / 1024,
      megabytes(figures.idleRss),
      "MB",
      "VmRSS of the server's process after its last start, nothing asked",
    );
    if (Array.isArray(figures.create)) {
      const create = distribution(figures.create);
      info(
        "Micropub create → file in the site's folder (median)",
        create.median,
        ms(create.median),
        "ms",
        `${figures.create.length} form-encoded creates after one warm-up, from the request until a new file holding the post is in the folder; p99 ${ms(create.p99)}`,
      );
    } else
      info("Micropub create → file in the site's folder (median)", null, "-", "ms", figures.create.error);
  }
  return {
    id: "indiekit-side-by-side",
    title: "possekit beside Indiekit",
    method:
      "Each server in a process of its own, as its users run it: `possekit serve` (the folder store, PGlite) and Indiekit 1.0.0-beta.29's `indiekit serve` under Node 24 (its file-system store, no MongoDB: none can be installed here, and Indiekit runs without it; interop/indiekit/install.ts installs it into a cache the first time). Start-up: from spawn to the first answer over HTTP (possekit's /health, Indiekit's /robots.txt), the first on an empty folder and the rest on the folders it left; idle RSS: /proc VmRSS some seconds after the last start; Micropub create: a form-encoded h-entry with a token of the create scope, timed until a new file holding it is in the site's folder.",
    rows,
    details: [],
    data: { measured, starts, idleMs, creates },
  };
}
