// Connecting a Nostr account from the page: the user pastes the private key (nsec1…), which is
// sealed like every secret and never shown again, and edits the relay list. Nostr has no server to
// ask whether a key is accepted: the key is checked by decoding it (NIP-19), and the relays by
// opening a socket to each under the private-address rule — at least one must be reachable, and
// none may be on a private address unless the host allows it. A NIP-46 remote signer (bunker://…)
// is recognised and refused with a clear message: it is not supported yet.
//
// Disconnecting forgets the key. A Nostr key cannot be revoked: the page says so.

import * as nip19 from "nostr-tools/nip19";
import { getPublicKey } from "nostr-tools/pure";
import {
  type AccountConnector,
  AccountError,
  type ConnectContext,
  type ConnectedAccount,
  type DisconnectOutcome,
} from "../../contract/accounts.ts";
import { npubOf, secretKeyBytes } from "./nostr-keys.ts";
import { DEFAULT_RELAYS, DEFAULT_VIEWER, relayUrl } from "./nostr-options.ts";
import { reachRelay } from "./nostr-relays.ts";

const RELAY_CHECK_MS = 10_000;

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

export const nostrAccount: AccountConnector = {
  async connect(fields, context) {
    const written = (fields.secretKey ?? "").trim();
    if (written === "") throw new AccountError("the private key is required", "invalid", "missing");
    if (written.startsWith("bunker://") || written.startsWith("nostrconnect://"))
      throw new AccountError(
        "Remote signers (NIP-46, bunker://) are not supported yet: paste the nsec1… key instead",
        "invalid",
        "nostrRemoteSigner",
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
    const relays = relayList(fields.relays ?? "");
    const viewerUrl = (fields.viewerUrl ?? "").trim() || DEFAULT_VIEWER;
    await checkRelays(relays, context);
    const npub = npubOf(getPublicKey(secretKey));
    return {
      options: { relays, viewerUrl },
      display: {
        name: `${npub.slice(0, 12)}…${npub.slice(-6)}`,
        url: `${viewerUrl.endsWith("/") ? viewerUrl : `${viewerUrl}/`}${npub}`,
        instance: relays.map((relay) => new URL(relay).host).join(", "),
      },
      // Always kept as nsec1…, whichever form was pasted.
      secrets: { secretKey: nip19.nsecEncode(secretKey) },
    };
  },

  async disconnect(account: ConnectedAccount): Promise<DisconnectOutcome> {
    return { revoked: false, byHand: { key: "nostrKey", params: { name: account.display.name } } };
  },
};
