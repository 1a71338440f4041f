// `possekit doctor`: every check, in an order where the clock comes last (it reads the Date headers
// the network checks collected). Each problem is one line; the exit code says whether there was one.
import type { HostConfig } from "../server/config/load.ts";
import { applicationUrl } from "./application-url.ts";
import { clock } from "./clock.ts";
import { folderPermissions } from "./folder-permissions.ts";
import { keyBackup } from "./key-backup.ts";
import type { Check, DoctorContext, Problem } from "./problem.ts";
import { secrets } from "./secrets.ts";
import { feeds, targets } from "./targets-and-feeds.ts";
import { trustProxy } from "./trust-proxy.ts";

export const CHECKS: Check[] = [
  applicationUrl,
  secrets,
  keyBackup,
  folderPermissions,
  trustProxy,
  targets,
  feeds,
  clock,
];

export interface DoctorOptions {
  env?: NodeJS.ProcessEnv;
  now?: () => number;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export async function runDoctor(config: HostConfig, options: DoctorOptions = {}): Promise<Problem[]> {
  const context: DoctorContext = {
    config,
    env: options.env ?? process.env,
    now: options.now ?? Date.now,
    fetch: options.fetch ?? fetch,
    timeoutMs: options.timeoutMs ?? 15_000,
    dates: [],
  };
  const problems: Problem[] = [];
  for (const check of CHECKS) problems.push(...(await check(context)));
  return problems;
}
