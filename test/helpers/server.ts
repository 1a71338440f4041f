// Starts the real host on 127.0.0.1 (a real HTTP server on a free port) with a fresh database, for
// tests that talk HTTP to it as any client would.

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtInPlugins } from "../../src/built-in-plugins.ts";
import type { Plugin } from "../../src/contract/plugin.ts";
import { loadConfig } from "../../src/server/config/load.ts";
import { Host } from "../../src/server/host.ts";
import { createLogger } from "../../src/server/logger.ts";
import { type Engine, pgliteEngine } from "./databases.ts";
import { startOnAFreePort } from "./free-port.ts";
import { signInAt } from "./sign-in.ts";
import { triggerOnly } from "./trigger-only.ts";

export interface TestServer {
  url: string;
  host: Host;
  password: string;
  /** An access token with these scopes (default "create update"). */
  token(scope?: string): Promise<string>;
  /** Signs in like a browser: the session cookie and its CSRF token. */
  signIn(): Promise<{ cookie: string; csrf: string }>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  engine?: Engine;
  /** The config file's content (merged over test defaults). */
  config?: Record<string, unknown>;
  /** Plug-in instances installed besides those the config names. */
  plugins?: Plugin[];
  env?: Record<string, string>;
  /** false: run without a database. */
  database?: boolean;
  /** Receives every line the server logs, at debug level (a test that reads the whole log). */
  log?: (line: string) => void;
  /** The port of the first try (default: a free one); its test names one another server holds. */
  firstPort?: number;
}

// Its tests import freePort from here, as they did before it moved beside the retry that uses it.
export { freePort } from "./free-port.ts";

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const engine = options.engine ?? pgliteEngine;
  const dataDir = mkdtempSync(join(tmpdir(), "possekit-test-"));
  const password = randomBytes(9).toString("base64url");
  const secret = randomBytes(24).toString("base64url");
  const database = options.database === false ? null : await engine.open();
  const fileConfig = triggerOnly(options.config ?? {});
  const application = (fileConfig.application ?? {}) as Record<string, unknown>;
  const hostOn = (port: number) => {
    const config = loadConfig({
      config: {
        ...fileConfig,
        application: {
          port,
          url: `http://127.0.0.1:${port}`,
          dataDir,
          ...(options.database === false ? { database: false } : {}),
          ...application,
        },
      },
      env: { SECRET: secret, PASSWORD: password, ...options.env },
      cwd: dataDir,
    });
    return new Host(config, {
      logger: options.log
        ? createLogger("debug", options.log)
        : createLogger(process.env.TEST_LOG_LEVEL === "debug" ? "debug" : "error"),
      builtInPlugins,
      ...(options.plugins ? { plugins: options.plugins } : {}),
      ...(database ? { database } : {}),
    });
  };
  // The port is chosen free, then bound only after prepare() (free-port.ts). A port the config names
  // is the test's own: no retry.
  const { host, port } = await startOnAFreePort(
    async (port) => {
      const host = hostOn(port);
      try {
        await host.prepare();
        await host.listen();
        return { host, port };
      } catch (error) {
        // A start refused (a configuration problem found at start) leaves nothing open behind it.
        await host.stop().catch(() => undefined);
        throw error;
      }
    },
    { firstPort: options.firstPort, retry: application.port === undefined },
  ).catch(async (error: unknown) => {
    await database?.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    host,
    password,
    token: (scope = "create update") =>
      host.tokens.issue({ scope: scope.split(/\s+/).filter(Boolean), clientId: "test", lifetimeDays: 1 }),
    signIn: () => signInAt(url, password),
    async close() {
      await host.stop();
      await database?.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
