// A copy's URL: the viewer's address followed by the event's NIP-19 code — `nevent1…` for a note
// (its id, author, kind and the relays that took it), `naddr1…` for an article (its kind, author and
// `d` tag, so the link stays right when an edit replaces the article). Deleting reads it back.
import type { NostrEvent } from "nostr-tools/core";
import * as nip19 from "nostr-tools/nip19";
import { ARTICLE_KIND } from "./nostr-compose.ts";

/** At most this many relays go into a link, as hints where to find the event. */
const RELAY_HINTS = 3;

export function copyUrl(viewerUrl: string, event: NostrEvent, relays: readonly string[]): string {
  const hints = relays.slice(0, RELAY_HINTS);
  if (event.kind === ARTICLE_KIND) {
    const identifier = event.tags.find((tag) => tag[0] === "d")?.[1] ?? "";
    return `${viewerUrl}${nip19.naddrEncode({ kind: event.kind, pubkey: event.pubkey, identifier, relays: hints })}`;
  }
  return `${viewerUrl}${nip19.neventEncode({ id: event.id, author: event.pubkey, kind: event.kind, relays: hints })}`;
}

export type CopyAddress =
  | { type: "event"; id: string; author?: string; kind?: number }
  | { type: "address"; kind: number; pubkey: string; identifier: string };

/** What a copy URL names, from its last path segment; undefined when it names no event. */
export function copyAddress(url: string): CopyAddress | undefined {
  let code: string;
  try {
    code = new URL(url).pathname.split("/").filter(Boolean).pop() ?? "";
  } catch {
    return undefined;
  }
  try {
    const decoded = nip19.decode(code);
    if (decoded.type === "nevent") {
      const { id, author, kind } = decoded.data;
      return { type: "event", id, ...(author ? { author } : {}), ...(kind !== undefined ? { kind } : {}) };
    }
    if (decoded.type === "note") return { type: "event", id: decoded.data };
    if (decoded.type === "naddr") return { type: "address", ...decoded.data };
  } catch {
    return undefined;
  }
  return undefined;
}
