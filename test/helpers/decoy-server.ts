// Another process's server on the port a test's server is told to try first (free-port.ts's
// firstPort): it answers every request as a healthy possekit would, so that a helper that took its
// answer for its own server's shows, and counts what it was asked.
import { once } from "node:events";
import { createServer } from "node:http";
import type { TestContext } from "node:test";

export interface DecoyServer {
  /** The port it holds on 127.0.0.1. */
  port: number;
  /** How many requests it has answered. */
  asked(): number;
}

/**
 * Listens on a free port of 127.0.0.1 and answers 200 `{"status":"ok"}` to every request, until
 * `test` ends: closed then even when the test failed before it could, since it would hold the test's
 * process open (a failed start of the server under test left the run waiting for its time limit).
 */
export async function startDecoyServer(test: TestContext): Promise<DecoyServer> {
  let asked = 0;
  const decoy = createServer((_request, response) => {
    asked += 1;
    response.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
  }).listen(0, "127.0.0.1");
  await once(decoy, "listening");
  test.after(() => {
    decoy.close();
    decoy.closeAllConnections();
  });
  return { port: (decoy.address() as { port: number }).port, asked: () => asked };
}
