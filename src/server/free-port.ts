// Whether a port can be listened on right now, and the first such port from a starting point: the
// demo moves aside when 3000 is taken (by `npm start`, most often) instead of failing.
import { createServer } from "node:net";

export function portIsFree(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

/** The first port from `from` where `count` consecutive ports are free, trying `attempts` places. */
export async function firstFreePorts(
  from: number,
  count: number,
  attempts = 20,
): Promise<number | undefined> {
  for (let start = from; start < from + attempts * count; start += count) {
    let free = true;
    for (let offset = 0; offset < count && free; offset++) free = await portIsFree(start + offset);
    if (free) return start;
  }
  return undefined;
}
