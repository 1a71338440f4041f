// Starts the host from a real config file in a temporary folder (plug-ins named by path, options
// entries keyed by that name), for tests that need what test/helpers/server.ts does not offer: a
// config file on disk, a logger to read, or a host that must fail to prepare.

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { builtInPlugins } from "../../src/built-in-plugins.ts";
import type { Database } from "../../src/contract/database.ts";
import type { Plugin } from "../../src/contract/plugin.ts";
import { loadConfig } from "../../src/server/config/load.ts";
import { Host } from "../../src/server/host.ts";
import { createLogger, type Logger } from "../../src/server/logger.ts";

const fixtures = resolve(fileURLToPath(import.meta.url), "../../fixtures");
export const TEST_PLUGIN_FILE = join(fixtures, "test-plugin/index.ts");
export const TEST_SYNDICATOR_FILE = join(fixtures, "test-syndicator.ts");

/** A plug-in path as a config file in `folder` names it: relative, starting with "." */
export function pathFrom(folder: string, file: string): string {
  return relative(folder, file);
}

export interface ConfigFolder {
  dir: string;
  configPath: string;
  env: Record<string, string>;
  remove(): void;
}

/** A temp folder holding possekit.config.json (made by `content(dir)`) and a data folder inside it. */
export function configFolder(content: (dir: string) => Record<string, unknown>): ConfigFolder {
  const dir = mkdtempSync(join(tmpdir(), "possekit-config-"));
  const configPath = join(dir, "possekit.config.json");
  writeFileSync(configPath, JSON.stringify(content(dir), null, 2));
  return {
    dir,
    configPath,
    env: { SECRET: randomBytes(24).toString("base64url"), PASSWORD: randomBytes(9).toString("base64url") },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Log lines kept in memory, so tests can read what the host logged. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return Object.assign(
    createLogger("debug", (line) => lines.push(line)),
    { lines },
  );
}

export interface StartedHost {
  url: string;
  host: Host;
  close(): Promise<void>;
}

/** Loads the folder's config file, prepares and starts the host; close() stops it (not the database given). */
export async function startHostFrom(
  folder: ConfigFolder,
  options: { database?: Database; logger?: Logger; plugins?: Plugin[] } = {},
): Promise<StartedHost> {
  const config = loadConfig({ configPath: folder.configPath, env: folder.env, cwd: folder.dir });
  const host = new Host(config, {
    logger: options.logger ?? createLogger("silent"),
    builtInPlugins,
    ...(options.database ? { database: options.database } : {}),
    ...(options.plugins ? { plugins: options.plugins } : {}),
  });
  try {
    await host.prepare();
  } catch (error) {
    await host.stop();
    throw error;
  }
  const { port } = await host.listen();
  return { url: `http://127.0.0.1:${port}`, host, close: () => host.stop() };
}
