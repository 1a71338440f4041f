// Stands between possekit and the PDS and, when asked, lets one request through but loses its
// answer (the connection is cut after the PDS answered): the syndicator cannot know whether the
// post was made, as after a timeout or a dropped connection in real life.
import { request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { listen, readBody } from "../../dev/sandbox/http-kit.ts";

export interface LosingProxy {
  url: string;
  /** The next request to each of these XRPC methods reaches the PDS, but its answer never comes back. */
  loseNextAnswer(...nsids: string[]): void;
  /** How many answers were lost so far. */
  lost(): number;
  /** Every answer passed on, in order: the XRPC method, its status, the PDS's headers and error name. */
  answers: { nsid: string; status: number; headers: IncomingMessage["headers"]; error?: string }[];
  close(): Promise<void>;
}

export async function startLosingProxy(upstream: string): Promise<LosingProxy> {
  const losing = new Set<string>();
  let lost = 0;
  const answers: LosingProxy["answers"] = [];
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
        // A connection of its own each time: a kept-alive one the PDS has just closed would lose a
        // request this proxy was not asked to lose.
        agent: false,
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
        const status = answer.statusCode ?? 502;
        const record: LosingProxy["answers"][number] = { nsid, status, headers: answer.headers };
        answers.push(record);
        // Every answer closes its connection: on a loaded machine a client may otherwise send its next
        // request on a kept-alive connection just as this server times it out, and lose it.
        const { connection: _hop, "keep-alive": _hint, ...headers } = answer.headers;
        response.writeHead(status, { ...headers, connection: "close" });
        if (status < 400) {
          answer.pipe(response);
          return;
        }
        // An error answer is small: kept whole, to note its XRPC error name ("ExpiredToken").
        const chunks: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => chunks.push(chunk));
        answer.on("end", () => {
          const body = Buffer.concat(chunks);
          try {
            record.error = (JSON.parse(body.toString("utf8")) as { error?: string }).error;
          } catch {
            // Not JSON: no error name to note.
          }
          response.end(body);
        });
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
    answers,
    close: running.close,
  };
}
