// Small helpers for the local stand-in servers (the sandbox Mastodon and the test fakes): listen on
// a loopback port, read a body with a size limit, answer JSON, and close even while a request hangs.
import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type Handler = (request: IncomingMessage, response: ServerResponse) => Promise<void> | void;

export interface RunningServer {
  /** e.g. http://127.0.0.1:40123, without a trailing slash. */
  url: string;
  server: Server;
  /** Stops listening and cuts every open connection, including ones that are being kept waiting. */
  close(): Promise<void>;
}

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`The request body is larger than ${limit} bytes`);
    this.name = "BodyTooLargeError";
  }
}

export async function listen(handler: Handler, port = 0, host = "127.0.0.1"): Promise<RunningServer> {
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    Promise.resolve(handler(request, response)).catch((error: unknown) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      sendJson(response, 500, { error: `Sandbox failure: ${message}` });
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${address.port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

export async function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) throw new BodyTooLargeError(limit);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

export function sendHtml(response: ServerResponse, status: number, html: string): void {
  response.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(html),
  });
  response.end(html);
}

/**
 * Waits `ms` milliseconds (forever when not finite) or until the client goes away, whichever comes
 * first. Returns false when the client went away, so the caller does not answer into the void.
 */
export function hold(response: ServerResponse, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const gone = () => {
      clearTimeout(timer);
      resolve(false);
    };
    response.once("close", gone);
    if (Number.isFinite(ms)) {
      timer = setTimeout(() => {
        response.off("close", gone);
        // The request may be over (its body read); what matters is that the client still listens.
        resolve(!response.destroyed);
      }, ms);
    }
  });
}

const digest = (value: string) => createHash("sha256").update(value).digest();

/** Compares a presented secret with the expected one in constant time. */
export function sameSecret(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}

/** The token of an "Authorization: Bearer <token>" header, if there is one. */
export function bearerToken(request: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? "");
  return match?.[1]?.trim();
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
