// Bluesky has no Idempotency-Key, but a record's key (rkey) is ours to choose: the same post and
// target always get the same key, so a repeated createRecord finds the record already there instead
// of making a second one. The key is a TID (https://atproto.com/specs/tid), the format the
// app.bsky.feed.post lexicon asks for: 64 bits, the top one 0, then 53 bits of microseconds since
// the epoch and 10 bits of "clock id", written in base32-sortable as 13 characters.
import { createHash } from "node:crypto";

const alphabet = "234567abcdefghijklmnopqrstuvwxyz";
export const tidPattern = /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/;

/** Used when the post has no valid published date: 2023-01-01, Bluesky's first year in public. */
const fallbackEpochMs = Date.UTC(2023, 0, 1);
const microsecondsInAYear = 365n * 24n * 3600n * 1_000_000n;

function encode(value: bigint): string {
  let text = "";
  for (let i = 0; i < 13; i++) {
    text = alphabet[Number(value & 31n)] + text;
    value >>= 5n;
  }
  return text;
}

/**
 * The record key for a post: its time is the post's published date (so keys sort like the posts),
 * and the microseconds within that millisecond and the clock id come from the idempotency key, so
 * two posts published in the same millisecond still get different keys.
 */
export function recordKeyFor(idempotencyKey: string, published: string | undefined): string {
  const hash = createHash("sha256").update(idempotencyKey).digest();
  const noise = hash.readBigUInt64BE(0);
  const clockId = noise & 0x3ffn;
  const publishedMs = published ? Date.parse(published) : Number.NaN;
  const microseconds =
    Number.isFinite(publishedMs) && publishedMs > 0
      ? BigInt(publishedMs) * 1000n + ((noise >> 10n) % 1000n)
      : BigInt(fallbackEpochMs) * 1000n + ((noise >> 10n) % microsecondsInAYear);
  const timestamp = microseconds & ((1n << 53n) - 1n);
  return encode((timestamp << 10n) | clockId);
}
