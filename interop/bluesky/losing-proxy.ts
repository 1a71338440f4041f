// Stands between possekit and the PDS and, when asked, lets one request through but loses its
// answer (the connection is cut after the PDS answered): the syndicator cannot know whether the
// post was made, as after a timeout or a dropped connection in real life. It can also spoil the next
// request to a method (its JSON body changed on the way), for the PDS itself to refuse.
import { request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { listen, readBody } from "../../dev/sandbox/http-kit.ts";

export interface LosingProxy {
  url: string;
  /** The next request to each of these XRPC methods reaches the PDS, but its answer never comes back. */
  loseNextAnswer(...nsids: string[]): void;
  /** The next request to `nsid` reaches the PDS with its JSON body as `spoil` makes it. */
  spoilNext(nsid: string, spoil: (body: unknown) => unknown): void;
  /** How many answers were lost so far. */
  lost(): number;
  /** Every answer passed on, in order: the XRPC method, its status, the PDS's headers and error name. */
  answers: {
    nsid: string;
    status: number;
    headers: IncomingMessage["headers"];
    error?: string;
    message?: string;
  }[];
  close(): Promise<void>;
}

export async function startLosingProxy(upstream: string): Promise<LosingProxy> {
  const losing = new Set<string>();
  const spoiling = new Map<string, (body: unknown) => unknown>();
  let lost = 0;
  const answers: LosingProxy["answers"] = [];
  const target = new URL(upstream);
  const running = await listen(async (request: IncomingMessage, response: ServerResponse) => {
    const read = await readBody(request, 50 * 1024 * 1024);
    const nsid = new URL(request.url ?? "/", "http://proxy").pathname.replace(/^\/xrpc\//, "");
    const lose = losing.delete(nsid);
    const spoil = spoiling.get(nsid);
    spoiling.delete(nsid);
    const body = spoil ? Buffer.from(JSON.stringify(spoil(JSON.parse(read.toString("utf8"))))) : read;
    // The body is read whole, so it goes on with its length rather than in chunks.
    const { "transfer-encoding": _chunked, ...sent } = request.headers;
    const forwarded = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: request.url,
        headers: { ...sent, host: target.host, "content-length": String(body.length) },
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
            const said = JSON.parse(body.toString("utf8")) as { error?: string; message?: string };
            record.error = said.error;
            record.message = said.message;
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
    spoilNext(nsid, spoil) {
      spoiling.set(nsid, spoil);
    },
    lost: () => lost,
    answers,
    close: running.close,
  };
}
