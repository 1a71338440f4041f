// `possekit doctor`: what a check finds, said as one line naming the option, what is wrong, and
// what to write instead — the same shape as a configuration error (docs/configuration.md).
import type { HostConfig } from "../server/config/load.ts";

export interface Problem {
  /** The option, environment variable or file the person changes. */
  option: string;
  problem: string;
  /** What to write or do instead, as an instruction. */
  instead: string;
}

export const line = (problem: Problem) => `${problem.option}: ${problem.problem} — ${problem.instead}`;

/** What every check is given; `dates` collects the Date headers of the answers, for the clock. */
export interface DoctorContext {
  config: HostConfig;
  env: NodeJS.ProcessEnv;
  now: () => number;
  /** Asks application.url (a test's trusts its own certificate authority). */
  fetch: typeof fetch;
  /** How long one network check may take. */
  timeoutMs: number;
  /** Date headers of the answers fetched so far, with who gave them. */
  dates: Array<{ from: string; date: number }>;
}

export type Check = (context: DoctorContext) => Promise<Problem[]> | Problem[];

/** Notes an answer's Date header for the clock check. */
export function noteDate(context: DoctorContext, from: string, headers: Headers): void {
  const date = Date.parse(headers.get("date") ?? "");
  if (Number.isFinite(date)) context.dates.push({ from, date });
}
