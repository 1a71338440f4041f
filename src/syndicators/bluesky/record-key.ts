// Bluesky has no Idempotency-Key, but a record's key (rkey) is ours to choose: the same post and
// target always get the same key, so a repeated createRecord finds the record already there instead
// of making a second one. The key is a TID (https://atproto.com/specs/tid), the format the
// app.bsky.feed.post lexicon asks for: 64 bits, the top one 0, then 53 bits of microseconds since
// the epoch and 10 bits of "clock id", written in base32-sortable as 13 characters.
//
// Everything comes from the idempotency key alone. An earlier version took the time part from the
// post's `published` date: editing that date after an attempt of unknown outcome then gave the
// resend a new key, and the post appeared twice. The key is fixed when the ledger first claims the
// target, so the record key is fixed with it.
import { createHash } from "node:crypto";

const alphabet = "234567abcdefghijklmnopqrstuvwxyz";
export const tidPattern = /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/;

/**
 * The time part lies within 2023, Bluesky's first year in public: always in the past, so no service
 * takes it for a clock running ahead. Nobody orders posts by it (clients sort by createdAt).
 */
const epochMs = Date.UTC(2023, 0, 1);
const microsecondsInAYear = 365n * 24n * 3600n * 1_000_000n;

function encode(value: bigint): string {
  let text = "";
  for (let i = 0; i < 13; i++) {
    text = alphabet[Number(value & 31n)] + text;
    value >>= 5n;
  }
  return text;
}

/** The record key for a post at a target: the same for the same idempotency key, whatever else changes. */
export function recordKeyFor(idempotencyKey: string): string {
  const hash = createHash("sha256").update(idempotencyKey).digest();
  const noise = hash.readBigUInt64BE(0);
  const clockId = noise & 0x3ffn;
  const microseconds = BigInt(epochMs) * 1000n + ((noise >> 10n) % microsecondsInAYear);
  return encode((microseconds << 10n) | clockId);
}

/**
 * The record keys recordKeyFor() can make, as listRecords pages them (rkeys sort as their TIDs do):
 * a list in ascending order with the cursor `after` starts at the first of them, and every key past
 * `last` was made some other way (by the user, in an app).
 */
export const recordKeyRange = {
  after: encode(((BigInt(epochMs) * 1000n) << 10n) - 1n),
  last: encode(((BigInt(epochMs) * 1000n + microsecondsInAYear - 1n) << 10n) | 0x3ffn),
};
