// safe-websocket.ts against real sockets on 127.0.0.1 (a relay from the ws library, and two HTTP
// servers that answer the upgrade with a redirect or never answer it): the private-address rule for
// a literal address and for a name, no redirect followed, the handshake timeout, the message size
// limit. Private addresses are allowed where a test needs to reach the local relay.
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { after, before, describe, it } from "node:test";
import type WebSocket from "ws";
import { WebSocketServer } from "ws";
import {
  isRefusedSocket,
  openSafeWebSocket,
  RefusedSocketAddress,
  safeWebSocketClass,
} from "../../src/net/safe-websocket.ts";

const open = { allowPrivate: true, handshakeTimeoutMs: 2_000 };
const guarded = { allowPrivate: false, handshakeTimeoutMs: 2_000 };

/** The error a socket fails with. */
async function failureOf(socket: WebSocket): Promise<unknown> {
  const [error] = await once(socket, "error").catch((thrown: unknown) => [thrown]);
  return error;
}

describe("a WebSocket to an address a user gave (a Nostr relay)", () => {
  let relay: WebSocketServer;
  let port: number;
  let lastUserAgent: string | undefined;
  let redirecting: Server;
  let silent: Server;
  const held: Duplex[] = [];

  before(async () => {
    relay = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    await once(relay, "listening");
    port = (relay.address() as AddressInfo).port;
    relay.on("connection", (socket, request) => {
      lastUserAgent = request.headers["user-agent"];
      socket.on("message", (data) => {
        const asked = String(data);
        // "big N": answers N bytes, to try the message size limit.
        if (asked.startsWith("big ")) socket.send("x".repeat(Number(asked.slice(4))));
        else socket.send(`echo ${asked}`);
      });
    });
    // Answers the upgrade with a redirect to the relay.
    redirecting = createServer((_request, response) => response.writeHead(404).end());
    redirecting.on("upgrade", (_request, socket) => {
      socket.end(`HTTP/1.1 302 Found\r\nLocation: ws://127.0.0.1:${port}/\r\nContent-Length: 0\r\n\r\n`);
    });
    // Accepts the connection and never answers the upgrade.
    silent = createServer();
    silent.on("upgrade", (_request, socket) => held.push(socket));
    await Promise.all(
      [redirecting, silent].map((server) => once(server.listen(0, "127.0.0.1"), "listening")),
    );
  });

  after(async () => {
    relay.close();
    for (const socket of held) socket.destroy();
    await Promise.all([redirecting, silent].map((server) => new Promise((done) => server.close(done))));
  });

  it("opens and talks to a relay when private addresses are allowed, naming itself possekit", async () => {
    const socket = openSafeWebSocket(`ws://127.0.0.1:${port}/`, open);
    await once(socket, "open");
    socket.send("hello");
    const [answer] = await once(socket, "message");
    assert.equal(String(answer), "echo hello");
    assert.equal(lastUserAgent, "possekit");
    socket.close();
  });

  it("refuses a literal private address at once, IPv4 or IPv6, unless allowed", () => {
    for (const url of [
      `ws://127.0.0.1:${port}/`,
      "wss://10.0.0.8/",
      "ws://[::1]:7777/",
      "wss://[fd00::1]/",
    ]) {
      assert.throws(
        () => openSafeWebSocket(url, guarded),
        (error: unknown) => error instanceof RefusedSocketAddress && isRefusedSocket(error),
        url,
      );
    }
  });

  it("refuses a name that resolves to a private address, with an error isRefusedSocket recognises", async () => {
    const error = await failureOf(openSafeWebSocket(`ws://localhost:${port}/`, guarded));
    assert.equal(isRefusedSocket(error), true, String(error));
  });

  it("reaches the same relay by name when private addresses are allowed", async () => {
    const socket = openSafeWebSocket(`ws://localhost:${port}/`, open);
    await once(socket, "open");
    socket.close();
  });

  it("does not count other failures as the refusal", async () => {
    assert.equal(isRefusedSocket(new Error("refused: private address")), false);
    const error = await failureOf(
      openSafeWebSocket(`ws://127.0.0.1:${(silent.address() as AddressInfo).port}/`, {
        allowPrivate: true,
        handshakeTimeoutMs: 100,
      }),
    );
    assert.equal(isRefusedSocket(error), false);
  });

  it("opens only ws:// and wss:// addresses", () => {
    for (const url of ["http://relay.example/", "https://relay.example/", "ftp://relay.example/"]) {
      assert.throws(
        () => openSafeWebSocket(url, open),
        /only ws:\/\/ and wss:\/\/ addresses are opened/,
        url,
      );
    }
  });

  it("does not follow a redirect of the upgrade", async () => {
    const socket = openSafeWebSocket(`ws://127.0.0.1:${(redirecting.address() as AddressInfo).port}/`, open);
    const error = await failureOf(socket);
    assert.match(String(error), /Unexpected server response: 302/);
  });

  it("gives up a handshake the server never answers after handshakeTimeoutMs", async () => {
    const socket = openSafeWebSocket(`ws://127.0.0.1:${(silent.address() as AddressInfo).port}/`, {
      allowPrivate: true,
      handshakeTimeoutMs: 100,
    });
    assert.match(String(await failureOf(socket)), /Opening handshake has timed out/);
  });

  it("closes a socket whose message is bigger than 512 KiB, and takes one of 512 KiB", async () => {
    const socket = openSafeWebSocket(`ws://127.0.0.1:${port}/`, open);
    await once(socket, "open");
    socket.send(`big ${512 * 1024}`);
    const [answer] = await once(socket, "message");
    assert.equal((answer as Buffer).length, 512 * 1024);
    // once() would reject on the error event that comes first.
    const closed = new Promise<number>((resolve) => socket.on("close", resolve));
    socket.send(`big ${512 * 1024 + 1}`);
    assert.match(String(await failureOf(socket)), /Max payload size exceeded/);
    const code = await closed;
    assert.equal(code, 1006, "the socket is dropped, not kept open");
  });

  it("is a class a relay library can construct with the same rules", () => {
    const Guarded = safeWebSocketClass(guarded);
    assert.throws(() => new Guarded(new URL("ws://192.168.1.1/")), RefusedSocketAddress);
  });
});
