// Connecting a Nostr account from the page: the user pastes the private key (nsec1…), which is
// sealed like every secret and never shown again, or a remote signer's bunker://… URI (NIP-46: no
// key of the user's is stored, only a key of our own for the conversation with the signer, sealed
// too), and edits the relay list. The key is checked by decoding it (NIP-19); a remote signer must
// accept `connect` (with the URI's secret) and tell the account's public key. Every relay — the
// publishing ones and the signer's — is opened under the private-address rule: none may be on a
// private address unless the host allows it, and at least one publishing relay must be reachable.
//
// Disconnecting forgets the key. A Nostr key cannot be revoked: the page says so.

import * as nip19 from "nostr-tools/nip19";
import { generateSecretKey, getPublicKey } from "nostr-tools/pure";
import {
  type AccountConnector,
  AccountError,
  type AccountInput,
  type ConnectContext,
  type ConnectedAccount,
  type DisconnectOutcome,
} from "../../contract/accounts.ts";
import { npubOf, secretKeyBytes } from "./nostr-keys.ts";
import { DEFAULT_RELAYS, DEFAULT_VIEWER, relayUrl } from "./nostr-options.ts";
import { reachRelay } from "./nostr-relays.ts";
import { bunkerPointer, bunkerUri, connectRemoteSigner } from "./nostr-signer.ts";

const RELAY_CHECK_MS = 10_000;
/** How long the remote signer may take to accept the connection, within the page's 30 s. */
const REMOTE_SIGNER_MS = 25_000;

/** The relay list as typed: one address a line (or separated by spaces or commas); empty: the defaults. */
function relayList(text: string): string[] {
  const written = text.split(/[\s,]+/).filter(Boolean);
  if (written.length === 0) return [...DEFAULT_RELAYS];
  if (written.length > 20) throw new AccountError("at most 20 relays", "invalid", "tooManyRelays");
  return [
    ...new Set(
      written.map((relay) => {
        const url = relayUrl(relay);
        if (!url)
          throw new AccountError(`${relay} is not a relay address (wss://…)`, "invalid", "badRelay", {
            relay,
          });
        return url;
      }),
    ),
  ];
}

async function checkRelays(relays: string[], context: ConnectContext): Promise<void> {
  const results = await Promise.all(
    relays.map((relay) =>
      reachRelay(relay, {
        allowPrivate: context.allowPrivate,
        signal: context.signal,
        timeoutMs: RELAY_CHECK_MS,
      }),
    ),
  );
  const refused = relays.find((_relay, index) => results[index]?.refused);
  if (refused) {
    const host = new URL(refused).host;
    throw new AccountError(`${host} is on a private address`, "invalid", "privateAddress", { host });
  }
  if (!results.some((result) => result.reached))
    throw new AccountError("None of the relays could be reached", "invalid", "relaysUnreachable");
}

/** The options every Nostr account has: its relays and its viewer. */
function commonOptions(fields: Readonly<Record<string, string>>) {
  return {
    relays: relayList(fields.relays ?? ""),
    viewerUrl: (fields.viewerUrl ?? "").trim() || DEFAULT_VIEWER,
  };
}

function display(publicKey: string, relays: string[], viewerUrl: string) {
  const npub = npubOf(publicKey);
  return {
    name: `${npub.slice(0, 12)}…${npub.slice(-6)}`,
    url: `${viewerUrl.endsWith("/") ? viewerUrl : `${viewerUrl}/`}${npub}`,
    instance: relays.map((relay) => new URL(relay).host).join(", "),
  };
}

async function connectRemote(
  uri: string,
  fields: Readonly<Record<string, string>>,
  context: ConnectContext,
): Promise<Omit<AccountInput, "type">> {
  const pointer = bunkerPointer(uri);
  if (!pointer)
    throw new AccountError("This bunker:// address names no signer and relay", "invalid", "nostrBadBunker");
  const { relays, viewerUrl } = commonOptions(fields);
  await checkRelays(relays, context);
  await checkRelays(pointer.relays, context);
  const clientKey = generateSecretKey();
  let publicKey: string;
  try {
    publicKey = await connectRemoteSigner(
      clientKey,
      pointer,
      context.allowPrivate,
      AbortSignal.any([context.signal, AbortSignal.timeout(REMOTE_SIGNER_MS)]),
    );
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).slice(0, 200);
    throw new AccountError(`The remote signer did not connect: ${reason}`, "invalid", "nostrSignerRefused", {
      reason,
    });
  }
  if (!/^[0-9a-f]{64}$/.test(publicKey))
    throw new AccountError("The remote signer gave no public key", "invalid", "nostrSignerRefused", {
      reason: "no public key",
    });
  return {
    // The URI without its secret, which was for this first connection only.
    options: { bunker: bunkerUri(pointer), publicKey, relays, viewerUrl },
    display: display(publicKey, relays, viewerUrl),
    secrets: { clientSecretKey: nip19.nsecEncode(clientKey) },
  };
}

export const nostrAccount: AccountConnector = {
  async connect(fields, context) {
    const written = (fields.secretKey ?? "").trim();
    if (written === "") throw new AccountError("the private key is required", "invalid", "missing");
    if (written.startsWith("bunker://")) return connectRemote(written, fields, context);
    if (written.startsWith("nostrconnect://"))
      throw new AccountError(
        "nostrconnect:// is started by the signer's app: paste its bunker://… address instead",
        "invalid",
        "nostrConnectUri",
      );
    if (written.startsWith("npub1"))
      throw new AccountError(
        "This is a public key (npub1…): paste the private key (nsec1…)",
        "invalid",
        "nostrPublicKey",
      );
    const secretKey = secretKeyBytes(written);
    if (!secretKey)
      throw new AccountError("This is not a Nostr private key (nsec1…)", "invalid", "nostrBadKey");
    const { relays, viewerUrl } = commonOptions(fields);
    await checkRelays(relays, context);
    return {
      options: { relays, viewerUrl },
      display: display(getPublicKey(secretKey), relays, viewerUrl),
      // Always kept as nsec1…, whichever form was pasted.
      secrets: { secretKey: nip19.nsecEncode(secretKey) },
    };
  },

  async disconnect(account: ConnectedAccount): Promise<DisconnectOutcome> {
    return { revoked: false, byHand: { key: "nostrKey", params: { name: account.display.name } } };
  },
};
