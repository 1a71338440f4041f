// A real HTTP server on 127.0.0.1 whose handler is chosen per test, and a client that can send a
// body in pieces, leave it unfinished, or hang up.
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface TestServer {
  url: string;
  /** The handler for the next requests. */
  handle(handler: Handler): void;
  close(): Promise<void>;
}

export async function startServer(): Promise<TestServer> {
  let current: Handler = (_req, res) => res.writeHead(500).end("no handler");
  const server: Server = createServer((req, res) => current(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    handle: (handler) => {
      current = handler;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

export interface Sent {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface SendOptions {
  headers?: Record<string, string>;
  chunks?: Buffer[];
  /** false: leave the request body unfinished (the answer must come before it ends). */
  end?: boolean;
}

/**
 * POSTs `chunks` and resolves with the answer. Errors after the answer has begun (the server
 * closing a connection we were still writing to) are expected and ignored.
 */
export function send(
  url: string,
  { headers = {}, chunks = [], end = true }: SendOptions = {},
): Promise<Sent> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(url, { method: "POST", headers, agent: false }, (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on("data", (part: Buffer) => parts.push(part));
      res.on("error", () => {});
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString() });
        req.destroy();
      });
    });
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    for (const chunk of chunks) req.write(chunk);
    if (end) req.end();
    else req.flushHeaders();
  });
}

export function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
