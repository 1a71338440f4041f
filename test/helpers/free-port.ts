// A port for a test's server, chosen free and bound later: by a child process once it has started
// (child-server.ts), by the host once prepare() has run the migrations (server.ts), seconds on a
// busy machine. Another test process may bind it in between; the server then says so at its start,
// and starts again on another free port rather than fail the test.
import { createServer } from "node:net";

/** A port free right now, so that the server's own URL (and its posts' URLs) name the real port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** What the server says when another process took its port between freePort() and its listen(). */
const PORT_TAKEN = /application\.port: \d+ is in use by another program/;

/** How many starts in all, each on another free port, before a taken port fails the test. */
const PORT_TRIES = 3;

export interface FreePortOptions {
  /** The port of the first try (default: a free one); its test names one another server holds. */
  firstPort?: number;
  /** false: a port the test named itself is its own, and taken fails the start (default true). */
  retry?: boolean;
  /** Told of each port found taken before the next start (a child's output notes it). */
  onTaken?: (port: number) => void;
}

/**
 * Resolves with what `start(port)` resolves with, on a port chosen free: when `start` throws because
 * another process took the port (its error says so, PORT_TAKEN), it starts again on another, at most
 * PORT_TRIES times in all. `start` leaves nothing of a failed start running; any other failure, and
 * the last, is thrown as it is.
 *
 * @example
 *   const host = await startOnAFreePort(async (port) => { const host = hostOn(port); await host.listen(); return host; });
 */
export async function startOnAFreePort<T>(
  start: (port: number) => Promise<T>,
  options: FreePortOptions = {},
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const port = attempt === 1 && options.firstPort !== undefined ? options.firstPort : await freePort();
    try {
      return await start(port);
    } catch (error) {
      if (options.retry !== false && attempt < PORT_TRIES && PORT_TAKEN.test(String(error))) {
        options.onTaken?.(port);
        continue;
      }
      throw error;
    }
  }
}
