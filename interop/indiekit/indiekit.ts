// The real Indiekit (1.0.0-beta.29, from its source) as a user runs it, with this package installed
// from `npm pack`: `indiekit serve` under Node 24, in its own process, configured by an
// indiekit.config.js in a temporary folder, without MongoDB. Tokens are what Indiekit's own
// endpoint-auth issues: HS256 JWTs signed with SECRET, checked by its introspection endpoint.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SignJWT } from "jose";
import { PACKAGE_ROOT } from "../../src/server/package-root.ts";
import { freePort } from "../../test/helpers/server.ts";
import { CACHE_ROOT, ensureIndiekit, ensureNode24, installOurPackage } from "./install.ts";

export const PACKAGE_NAME = "@possekit/endpoint-syndicate";
export const ME = "https://blog.example/";

export interface Installed {
  node: string;
  indiekitRoot: string;
}

/**
 * `npm pack` of this package (or the tarball POSSEKIT_INDIEKIT_TARBALL names), Node 24 and Indiekit
 * from the cache (installed the first time), and the package's files put into Indiekit.
 */
export function installIndiekitWithOurPackage(): Installed {
  // Once per process: every describe of the check uses the same installation.
  installation ??= install();
  return installation;
}

let installation: Installed | undefined;

function install(): Installed {
  let tarball = process.env.POSSEKIT_INDIEKIT_TARBALL;
  if (!tarball) {
    const folder = join(CACHE_ROOT, "packed");
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(folder, { recursive: true });
    const started = Date.now();
    const [packed] = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--pack-destination", folder], {
        cwd: PACKAGE_ROOT,
        encoding: "utf8",
        stdio: ["ignore", "pipe", 2],
      }),
    ) as Array<{ filename: string }>;
    if (!packed) throw new Error("npm pack made no tarball");
    tarball = join(folder, packed.filename);
    process.stderr.write(`indiekit-interop: npm pack took ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
  const node = ensureNode24();
  const indiekitRoot = ensureIndiekit(tarball, join(PACKAGE_ROOT, "package.json"));
  installOurPackage(indiekitRoot, tarball, PACKAGE_NAME);
  return { node, indiekitRoot };
}

export interface RunningIndiekit {
  url: string;
  secret: string;
  /** Everything the process wrote so far. */
  output(): string;
  /** A token Indiekit's introspection accepts, for `me` with `scope`. */
  token(scope: string): Promise<string>;
  stop(): Promise<void>;
}

export interface IndiekitExit {
  code: number | null;
  stdout: string;
  stderr: string;
}

function configFile(options: Record<string, unknown>): string {
  const site = mkdtempSync(join(tmpdir(), "possekit-indiekit-"));
  const config = {
    application: { name: "Indiekit with possekit" },
    plugins: ["@indiekit/store-file-system", PACKAGE_NAME],
    // Where Indiekit writes a note (no preset: its post types then have no paths of their own).
    publication: { me: ME, postTypes: { note: { post: { path: "notes/{slug}.md", url: "notes/{slug}/" } } } },
    "@indiekit/store-file-system": { directory: join(site, "content") },
    [PACKAGE_NAME]: options,
  };
  const path = join(site, "indiekit.config.js");
  writeFileSync(path, `export default ${JSON.stringify(config, null, 2)};\n`);
  return path;
}

function spawnIndiekit(installed: Installed, config: string, port: number, env: Record<string, string>) {
  return spawn(
    installed.node,
    [
      join(installed.indiekitRoot, "packages/indiekit/bin/cli.js"),
      "--config",
      config,
      "serve",
      "--port",
      String(port),
    ],
    {
      cwd: join(config, ".."),
      // Not NODE_ENV=development: Indiekit then signs every request in by itself.
      env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
}

/** A token Indiekit's introspection accepts (its endpoint-auth's HS256 JWT), for ME with `scope`. */
export function indiekitToken(secret: string, scope: string): Promise<string> {
  return new SignJWT({ me: ME, scope, client_id: "https://client.example/" })
    .setProtectedHeader({ alg: "HS256" })
    .setIssuedAt()
    .setExpirationTime("10m")
    .sign(new TextEncoder().encode(secret));
}

/**
 * Starts Indiekit with our plug-in configured with `options`; resolves once it answers HTTP.
 * `options` and `env` may be made from Indiekit's URL and SECRET (a source reading its own Micropub
 * endpoint with one of its tokens).
 */
export async function startIndiekit(
  installed: Installed,
  options: Record<string, unknown> | ((site: { url: string; secret: string }) => Record<string, unknown>),
  env:
    | Record<string, string>
    | ((site: { url: string; secret: string }) => Promise<Record<string, string>>) = {},
): Promise<RunningIndiekit> {
  // A port taken by another test's server before Indiekit listens: again on another port.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startIndiekitOnce(installed, options, env);
    } catch (error) {
      if (!(error instanceof PortTaken) || attempt === 3) throw error;
    }
  }
}

class PortTaken extends Error {}

async function startIndiekitOnce(
  installed: Installed,
  options: Record<string, unknown> | ((site: { url: string; secret: string }) => Record<string, unknown>),
  env: Record<string, string> | ((site: { url: string; secret: string }) => Promise<Record<string, string>>),
): Promise<RunningIndiekit> {
  const secret = randomBytes(24).toString("base64url");
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const site = { url, secret };
  const child = spawnIndiekit(
    installed,
    configFile(typeof options === "function" ? options(site) : options),
    port,
    {
      SECRET: secret,
      PASSWORD_SECRET: "$2a$10$not.a.real.bcrypt.hash.but.a.set.password.secret",
      ...(typeof env === "function" ? await env(site) : env),
    },
  );
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await waitUntilAnswering(url, child, () => output);
  return {
    url,
    secret,
    output: () => output,
    token: (scope) => indiekitToken(secret, scope),
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** What Indiekit answers at /robots.txt (packages/indiekit/lib/routes.js). */
const INDIEKIT_ROBOTS = "User-agent: *\nDisallow: /";

async function waitUntilAnswering(url: string, child: ChildProcess, output: () => string): Promise<void> {
  // Polled, not slept: the first answer ends the wait (a cold start loads some hundred modules).
  for (let attempt = 0; attempt < 600; attempt += 1) {
    if (child.exitCode !== null) {
      if (output().includes("EADDRINUSE")) throw new PortTaken(`${url} was taken before Indiekit listened`);
      throw new Error(`Indiekit exited with ${child.exitCode}:\n${output()}`);
    }
    let answer: { ok: boolean; text: string } | undefined;
    try {
      const response = await fetch(`${url}/robots.txt`);
      answer = { ok: response.ok, text: await response.text() };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    // Indiekit's own answer, not just any: the port was free when chosen, and under load another
    // test's server can take it before Indiekit listens, and then answers in Indiekit's place.
    if (answer.ok && answer.text === INDIEKIT_ROBOTS) return;
    child.kill("SIGKILL");
    throw new PortTaken(`another server answers at ${url}`);
  }
  child.kill("SIGKILL");
  throw new Error(`Indiekit did not answer within 60 s:\n${output()}`);
}

/** Runs Indiekit with `options` until it exits by itself (a refused start); kills it after 60 s. */
export async function runIndiekitUntilExit(
  installed: Installed,
  options: Record<string, unknown>,
): Promise<IndiekitExit> {
  const port = await freePort();
  const child = spawnIndiekit(installed, configFile(options), port, {
    SECRET: "s",
    PASSWORD_SECRET: "p",
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const code = await new Promise<number | null>((resolve) =>
    child.once("exit", (exitCode) => resolve(exitCode)),
  );
  clearTimeout(timer);
  return { code, stdout, stderr };
}
