// A WebSocket to an address the user gave (a Nostr relay), under the same rule as safe-fetch.ts: no
// private address unless the host's fetch.allowPrivate says so (a local sandbox, the tests). A
// literal address is checked before connecting; a name is checked by the lookup, address by
// address, so a name that resolves to a private address is refused too. The upgrade never follows a
// redirect, and a message is size-limited.
import { isIP } from "node:net";
import WebSocket from "ws";
import { isPrivateAddress } from "./private-addresses.ts";
import { isRefusedAddress, publicOnlyLookup } from "./safe-fetch.ts";

/** Bigger than any answer a relay gives to EVENT (an OK or a NOTICE). */
const MAX_MESSAGE_BYTES = 512 * 1024;

export class RefusedSocketAddress extends Error {
  constructor(readonly url: string) {
    super(`${url}: refused: private address`);
    this.name = "RefusedSocketAddress";
  }
}

export interface SocketPolicy {
  allowPrivate: boolean;
  /** How long the opening handshake may take. */
  handshakeTimeoutMs: number;
}

/**
 * Opens a socket to a ws:// or wss:// URL. Throws RefusedSocketAddress at once for a literal private
 * address; a name whose addresses are all private fails the socket with an `error` event that
 * isRefusedSocket() recognises.
 */
export function openSafeWebSocket(url: string, policy: SocketPolicy): WebSocket {
  const parsed = new URL(url);
  if (parsed.protocol !== "ws:" && parsed.protocol !== "wss:")
    throw new Error(`${url}: only ws:// and wss:// addresses are opened`);
  const Safe = safeWebSocketClass(policy);
  return new Safe(url);
}

/** Whether a socket's error (or openSafeWebSocket's throw) is the private-address refusal. */
export function isRefusedSocket(error: unknown): boolean {
  return error instanceof RefusedSocketAddress || isRefusedAddress(error);
}

/**
 * A WebSocket class that opens every socket under the policy, for a library that takes a WebSocket
 * implementation (nostr-tools' relay pool): `new Guarded(url)` throws for a private literal address
 * and looks names up with the private-address rule.
 */
export function safeWebSocketClass(policy: SocketPolicy): new (url: string | URL) => WebSocket {
  return class SafeWebSocket extends WebSocket {
    constructor(url: string | URL) {
      const parsed = new URL(url);
      const literal = parsed.hostname.replace(/^\[|\]$/g, "");
      if (!policy.allowPrivate && isIP(literal) && isPrivateAddress(literal))
        throw new RefusedSocketAddress(parsed.href);
      super(parsed, {
        followRedirects: false,
        maxPayload: MAX_MESSAGE_BYTES,
        handshakeTimeout: policy.handshakeTimeoutMs,
        headers: { "user-agent": "possekit" },
        ...(policy.allowPrivate ? {} : { lookup: publicOnlyLookup }),
      });
    }
  };
}
