// `possekit doctor`: prints one line per problem and exits 1, or says all is well and exits 0.
import { runDoctor } from "./doctor/doctor.ts";
import { line } from "./doctor/problem.ts";
import type { HostConfig } from "./server/config/load.ts";

export async function doctorFromCli(config: HostConfig): Promise<number> {
  const problems = await runDoctor(config);
  for (const problem of problems) process.stdout.write(`${line(problem)}\n`);
  if (problems.length > 0) {
    process.stdout.write(`${problems.length} problem${problems.length === 1 ? "" : "s"} found.\n`);
    return 1;
  }
  process.stdout.write("No problems found: this configuration is ready for production.\n");
  return 0;
}
