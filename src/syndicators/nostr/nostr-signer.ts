// Who signs an account's events: its private key, here, or a remote signer (NIP-46, a "bunker") that
// holds the key and signs on request. A remote signer is reached through its relays with a key of
// our own for the conversation (the client key, kept sealed like a secret): each request is a kind
// 24133 event, NIP-44-encrypted to the signer, and so is its answer. nostr-tools' BunkerSigner
// speaks the protocol; its relay pool opens its sockets under the private-address rule.

import { AbstractSimplePool } from "nostr-tools/abstract-pool";
import type { EventTemplate, NostrEvent } from "nostr-tools/core";
import { type BunkerPointer, BunkerSigner } from "nostr-tools/nip46";
import { finalizeEvent, verifyEvent } from "nostr-tools/pure";
import { safeWebSocketClass } from "../../net/safe-websocket.ts";

export interface NostrSigner {
  sign(template: EventTemplate, signal: AbortSignal): Promise<NostrEvent>;
}

export function localSigner(secretKey: Uint8Array): NostrSigner {
  return { sign: async (template) => finalizeEvent(template, secretKey) };
}

/** bunker://<signer's pubkey>?relay=wss://…&secret=… (NIP-46); undefined when it is not one. */
export function bunkerPointer(uri: string): BunkerPointer | undefined {
  const match = /^bunker:\/\/([0-9a-f]{64})\/?(?:\?(.*))?$/.exec(uri.trim());
  if (!match?.[1]) return undefined;
  const query = new URLSearchParams(match[2] ?? "");
  const relays = query.getAll("relay");
  if (relays.length === 0) return undefined;
  return { pubkey: match[1], relays, secret: query.get("secret") };
}

/** The URI without its one-time secret: what an account keeps to reach its signer again. */
export function bunkerUri(pointer: BunkerPointer): string {
  const query = pointer.relays.map((relay) => `relay=${encodeURIComponent(relay)}`).join("&");
  return `bunker://${pointer.pubkey}?${query}`;
}

/** Waits for `work`, or fails when the signal aborts: a signer that never answers must not hang a send. */
function within<T>(work: Promise<T>, signal: AbortSignal, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Error(`the remote signer did not answer ${what} in time`));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

export interface RemoteSession {
  signer: BunkerSigner;
  close(): void;
}

/** Opens a conversation with a remote signer; close() it when done. */
export function openRemoteSigner(
  clientSecretKey: Uint8Array,
  pointer: BunkerPointer,
  allowPrivate: boolean,
): RemoteSession {
  const pool = new AbstractSimplePool({
    verifyEvent,
    maxWaitForConnection: 15_000,
    websocketImplementation: safeWebSocketClass({
      allowPrivate,
      handshakeTimeoutMs: 15_000,
    }) as unknown as typeof WebSocket,
  });
  const signer = BunkerSigner.fromBunker(clientSecretKey, pointer, { pool, skipSwitchRelays: true });
  return {
    signer,
    close: () => {
      void signer.close();
      pool.destroy();
    },
  };
}

/** Asks the remote signer (after `connect`, with the pointer's secret) whose key it holds. */
export async function connectRemoteSigner(
  clientSecretKey: Uint8Array,
  pointer: BunkerPointer,
  allowPrivate: boolean,
  signal: AbortSignal,
): Promise<string> {
  const session = openRemoteSigner(clientSecretKey, pointer, allowPrivate);
  try {
    await within(session.signer.connect(), signal, "the connection");
    return await within(session.signer.getPublicKey(), signal, "with its public key");
  } finally {
    session.close();
  }
}

/** A signer that asks the remote signer for each event, and checks it signed with the account's key. */
export function remoteSigner(
  clientSecretKey: Uint8Array,
  pointer: BunkerPointer,
  publicKey: string,
  allowPrivate: () => boolean,
): NostrSigner {
  return {
    async sign(template, signal) {
      const session = openRemoteSigner(clientSecretKey, pointer, allowPrivate());
      try {
        const event = await within(session.signer.signEvent(template), signal, "the signing request");
        if (event.pubkey !== publicKey)
          throw new Error(`the remote signer signed with another key (${event.pubkey.slice(0, 8)}…)`);
        return event;
      } finally {
        session.close();
      }
    },
  };
}
