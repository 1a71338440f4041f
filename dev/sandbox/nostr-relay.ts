// A real Nostr relay on 127.0.0.1 for the tests and the demo: the protocol is @nostr-relay/core's
// (NIP-01 EVENT/REQ/CLOSE and the OK, EOSE and CLOSED answers; ids and Schnorr signatures checked
// before anything is stored; a repeated event answered `OK true "duplicate: …"`), spoken over a
// `ws` WebSocket server. What a relay package leaves to its host is here: where events are kept (in
// memory, as NIP-01 says for each kind range: regular events all kept, replaceable ones — 0, 3,
// 10000–19999 — the newest per author and kind, addressable ones — 30000–39999 — the newest per
// author, kind and `d` tag) and NIP-09 deletion requests (the referenced events of the same author
// are no longer served; the request itself is kept and served). A guard may refuse events, as a
// relay's write policy does, with NIP-01's machine-readable prefix (`blocked:`, `restricted:`, …).
import type { AddressInfo } from "node:net";
import {
  type Event,
  EventRepository,
  type EventRepositoryUpsertResult,
  EventUtils,
  type Filter,
} from "@nostr-relay/common";
import { NostrRelay } from "@nostr-relay/core";
import { WebSocketServer } from "ws";

const isReplaceable = (kind: number) => kind === 0 || kind === 3 || (kind >= 10_000 && kind < 20_000);
const isAddressable = (kind: number) => kind >= 30_000 && kind < 40_000;
const dTag = (event: Event) => event.tags.find((tag) => tag[0] === "d")?.[1] ?? "";
const addressOf = (event: Event) => `${event.kind}:${event.pubkey}:${dTag(event)}`;

/** Newer first; of two at the same second, the lower id wins (NIP-01). */
const newer = (a: Event, b: Event) =>
  a.created_at > b.created_at || (a.created_at === b.created_at && a.id < b.id);

class MemoryEventRepository extends EventRepository {
  readonly events = new Map<string, Event>();
  /** Every EVENT id the relay was sent and took, in order, duplicates included. */
  readonly received: string[] = [];

  isSearchSupported(): boolean {
    return false;
  }

  upsert(event: Event): EventRepositoryUpsertResult {
    if (this.events.has(event.id)) return { isDuplicate: true };
    const replaces = [...this.events.values()].filter(
      (old) =>
        old.pubkey === event.pubkey &&
        old.kind === event.kind &&
        (isReplaceable(event.kind) || (isAddressable(event.kind) && addressOf(old) === addressOf(event))),
    );
    if (replaces.some((old) => !newer(event, old))) return { isDuplicate: true };
    for (const old of replaces) this.events.delete(old.id);
    this.events.set(event.id, event);
    return { isDuplicate: false };
  }

  find(filter: Filter): Event[] {
    const found = [...this.events.values()]
      .filter((event) => EventUtils.isMatchingFilter(event, filter))
      .sort((a, b) => b.created_at - a.created_at);
    return filter.limit === undefined ? found : found.slice(0, filter.limit);
  }

  override async deleteByDeletionRequest(request: Event): Promise<void> {
    for (const tag of request.tags) {
      for (const event of [...this.events.values()]) {
        if (event.pubkey !== request.pubkey || event.created_at > request.created_at) continue;
        if ((tag[0] === "e" && event.id === tag[1]) || (tag[0] === "a" && addressOf(event) === tag[1]))
          this.events.delete(event.id);
      }
    }
    this.events.set(request.id, request);
  }

  async destroy(): Promise<void> {
    this.events.clear();
  }
}

export interface SandboxRelay {
  /** ws://127.0.0.1:<port> */
  url: string;
  /** The events the relay serves now, by id. */
  events(): Event[];
  /** Each EVENT message's id as it arrived, repeats included. */
  received: string[];
  /** From now on, refuse every event with `OK false` and this reason (null: accept again). */
  refuse(reason: string | null): void;
  close(): Promise<void>;
}

export async function startNostrRelay(): Promise<SandboxRelay> {
  const repository = new MemoryEventRepository();
  const relay = new NostrRelay(repository, { filterResultCacheTtl: 0, eventHandlingResultCacheTtl: 0 });
  let refusal: string | null = null;
  relay.register({
    beforeHandleEvent: () => (refusal ? { canHandle: false, message: refusal } : { canHandle: true }),
  });
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  server.on("connection", (socket) => {
    relay.handleConnection(socket);
    socket.on("message", async (data) => {
      let message: unknown;
      try {
        message = JSON.parse(String(data));
      } catch {
        socket.send(JSON.stringify(["NOTICE", "invalid: not JSON"]));
        return;
      }
      if (!Array.isArray(message)) return;
      if (message[0] === "EVENT" && typeof message[1]?.id === "string")
        repository.received.push(message[1].id);
      await relay.handleMessage(socket, message as Parameters<NostrRelay["handleMessage"]>[1]);
    });
    socket.on("close", () => relay.handleDisconnect(socket));
  });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`,
    events: () => [...repository.events.values()],
    received: repository.received,
    refuse: (reason) => {
      refusal = reason;
    },
    close: async () => {
      for (const client of server.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await relay.destroy();
    },
  };
}
