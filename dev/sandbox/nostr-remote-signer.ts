// A NIP-46 remote signer ("bunker") for the tests, as https://github.com/nostr-protocol/nips/blob/master/46.md
// describes one. No remote signer from the npm registry runs as a library here (nostr-tools has the
// client side only), so this is written to the NIP, with nostr-tools' NIP-44 and signing:
// - It listens on a relay for kind 24133 events p-tagged with its own key (the remote-signer key,
//   which is not the user's key), each NIP-44-encrypted to it by the client:
//   {"id", "method", "params"}.
// - It answers each with a kind 24133 event from its key, p-tagged with the client's key, holding
//   the NIP-44-encrypted {"id", "result"} or {"id", "result": "", "error"}.
// - `connect` [remote-signer pubkey, secret]: accepted with "ack" when the secret is the one in
//   its bunker:// URI, which is then used up; the client's key is remembered as connected.
// - `get_public_key`: the user's public key; `sign_event` [JSON of {kind, content, tags,
//   created_at}]: the JSON of the event signed with the user's key; `ping`: "pong". A client that has
//   not connected is answered with an error.

import type { NostrEvent } from "nostr-tools/core";
import * as nip44 from "nostr-tools/nip44";
import { finalizeEvent, generateSecretKey, getPublicKey, verifyEvent } from "nostr-tools/pure";
import WebSocket from "ws";

const NOSTR_CONNECT_KIND = 24133;

export interface SandboxRemoteSigner {
  /** bunker://<remote-signer pubkey>?relay=…&secret=… */
  uri: string;
  /** The user's public key, whose events it signs. */
  userPublicKey: string;
  /** Each sign_event it answered, in order (the ids of the events it signed). */
  signed: string[];
  /** Refuse every signing request from now on (the user declined, say). */
  refuseSigning(refuse: boolean): void;
  /** Sign with another key than the user's from now on (a misbehaving signer); null: the user's again. */
  signWith(key: Uint8Array | null): void;
  close(): Promise<void>;
}

export async function startRemoteSigner(
  relayUrl: string,
  userKey = generateSecretKey(),
): Promise<SandboxRemoteSigner> {
  const signerKey = generateSecretKey();
  const signerPubkey = getPublicKey(signerKey);
  const userPublicKey = getPublicKey(userKey);
  let secret: string | null = `secret-${Buffer.from(generateSecretKey()).toString("hex").slice(0, 16)}`;
  const uri = `bunker://${signerPubkey}?relay=${encodeURIComponent(relayUrl)}&secret=${secret}`;
  const connected = new Set<string>();
  const signed: string[] = [];
  let refusing = false;
  let otherKey: Uint8Array | null = null;

  const socket = new WebSocket(relayUrl);
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });

  const answer = (client: string, body: Record<string, string>) => {
    const content = nip44.encrypt(JSON.stringify(body), nip44.getConversationKey(signerKey, client));
    const event = finalizeEvent(
      { kind: NOSTR_CONNECT_KIND, tags: [["p", client]], content, created_at: Math.floor(Date.now() / 1000) },
      signerKey,
    );
    socket.send(JSON.stringify(["EVENT", event]));
  };

  const handle = (request: NostrEvent) => {
    if (!verifyEvent(request)) return;
    const client = request.pubkey;
    let body: { id?: unknown; method?: unknown; params?: unknown };
    try {
      body = JSON.parse(nip44.decrypt(request.content, nip44.getConversationKey(signerKey, client)));
    } catch {
      return;
    }
    const id = String(body.id ?? "");
    const params = Array.isArray(body.params) ? body.params.map(String) : [];
    if (body.method === "connect") {
      if (params[0] === signerPubkey && secret !== null && params[1] === secret) {
        secret = null;
        connected.add(client);
        return answer(client, { id, result: "ack" });
      }
      return answer(client, { id, result: "", error: "connect refused: wrong secret" });
    }
    if (!connected.has(client))
      return answer(client, { id, result: "", error: "unauthorized: connect first" });
    if (body.method === "ping") return answer(client, { id, result: "pong" });
    if (body.method === "get_public_key") return answer(client, { id, result: userPublicKey });
    if (body.method === "sign_event") {
      if (refusing) return answer(client, { id, result: "", error: "the user declined to sign" });
      const template = JSON.parse(params[0] ?? "{}") as Pick<
        NostrEvent,
        "kind" | "content" | "tags" | "created_at"
      >;
      const event = finalizeEvent(template, otherKey ?? userKey);
      signed.push(event.id);
      return answer(client, { id, result: JSON.stringify(event) });
    }
    return answer(client, { id, result: "", error: `unsupported method ${String(body.method)}` });
  };

  socket.on("message", (data) => {
    let message: unknown;
    try {
      message = JSON.parse(String(data));
    } catch {
      return;
    }
    if (Array.isArray(message) && message[0] === "EVENT" && message[1] === "bunker")
      handle(message[2] as NostrEvent);
  });
  // Listening before the URI is handed out: a request sent from then on is heard.
  const listening = new Promise<void>((resolve) =>
    socket.on("message", (data) => {
      if (String(data).startsWith('["EOSE","bunker"')) resolve();
    }),
  );
  socket.send(JSON.stringify(["REQ", "bunker", { kinds: [NOSTR_CONNECT_KIND], "#p": [signerPubkey] }]));
  await listening;

  return {
    uri,
    userPublicKey,
    signed,
    refuseSigning: (refuse) => {
      refusing = refuse;
    },
    signWith: (key) => {
      otherKey = key;
    },
    close: async () => {
      socket.terminate();
    },
  };
}
