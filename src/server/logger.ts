// A tiny levelled logger, the host's implementation of the contract's Logger. Secrets never reach it:
// callers log ids and counts, not credentials.
import type { Logger } from "../contract/logger.ts";

export type { Logger };

type Level = "debug" | "info" | "warn" | "error" | "silent";
const order: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export function createLogger(
  level: Level = "info",
  write: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Logger {
  const log = (at: Exclude<Level, "silent">) => (message: string, fields?: Record<string, unknown>) => {
    if (order[at] < order[level]) return;
    const extra = fields ? ` ${JSON.stringify(fields)}` : "";
    write(`${new Date().toISOString()} ${at.toUpperCase()} ${message}${extra}`);
  };
  return { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}

export function logLevelFromEnv(): Level {
  const value = process.env.LOG_LEVEL;
  if (value && value in order) return value as Level;
  return process.env.NODE_ENV === "test" ? "warn" : "info";
}
