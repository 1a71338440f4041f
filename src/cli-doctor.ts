import type { HostConfig } from "./server/config/load.ts";
export async function doctorFromCli(_config: HostConfig): Promise<number> {
  return 1;
}
