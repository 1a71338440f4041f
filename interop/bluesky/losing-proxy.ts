// Stands between possekit and the PDS and, when asked, lets one request through but loses its
// answer (the connection is cut after the PDS answered): the syndicator cannot know whether the
// post was made, as after a timeout or a dropped connection in real life.
import { request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { listen, readBody } from "../../src/sandbox/http-kit.ts";

export interface LosingProxy {
  url: string;
  /** The next request to each of these XRPC methods reaches the PDS, but its answer never comes back. */
  loseNextAnswer(...nsids: string[]): void;
  /** How many answers were lost so far. */
  lost(): number;
  close(): Promise<void>;
}

export async function startLosingProxy(upstream: string): Promise<LosingProxy> {
  const losing = new Set<string>();
  let lost = 0;
  const target = new URL(upstream);
  const running = await listen(async (request: IncomingMessage, response: ServerResponse) => {
    const body = await readBody(request, 50 * 1024 * 1024);
    const nsid = new URL(request.url ?? "/", "http://proxy").pathname.replace(/^\/xrpc\//, "");
    const lose = losing.delete(nsid);
    const forwarded = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: request.url,
        headers: { ...request.headers, host: target.host },
      },
      (answer) => {
        if (lose) {
          answer.resume();
          answer.on("end", () => {
            lost++;
            request.socket.destroy();
          });
          return;
        }
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forwarded.on("error", () => response.destroy());
    forwarded.end(body);
  });
  return {
    url: running.url,
    loseNextAnswer(...nsids) {
      for (const nsid of nsids) losing.add(nsid);
    },
    lost: () => lost,
    close: running.close,
  };
}
