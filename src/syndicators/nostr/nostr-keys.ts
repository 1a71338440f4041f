// Nostr keys as people write them (NIP-19): a private key as nsec1… (or its 64 hex digits), a public
// key shown as npub1…. The bech32 work is nostr-tools'.
import * as nip19 from "nostr-tools/nip19";

/** The 32 bytes of a private key written as nsec1… or as 64 hex digits; undefined when it is neither. */
export function secretKeyBytes(written: string): Uint8Array | undefined {
  const text = written.trim();
  if (/^[0-9a-f]{64}$/i.test(text)) return Uint8Array.from(Buffer.from(text, "hex"));
  if (!text.startsWith("nsec1")) return undefined;
  try {
    const decoded = nip19.decode(text);
    return decoded.type === "nsec" ? decoded.data : undefined;
  } catch {
    return undefined;
  }
}

/** The npub1… form of a public key given in hex. */
export function npubOf(publicKey: string): string {
  return nip19.npubEncode(publicKey);
}
