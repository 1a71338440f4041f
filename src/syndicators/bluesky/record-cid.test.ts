// A record's CID computed here is the one the PDS gives it: checked against records whose CIDs
// Bluesky published, and against what changes a CID (any byte of the record) and what does not (the
// order of its keys, which DAG-CBOR sorts).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { recordCid } from "./record-cid.ts";

describe("recordCid", () => {
  it("is a CIDv1 of dag-cbor and sha-256, the same whatever the order of the keys", async () => {
    const a = await recordCid({
      $type: "app.bsky.feed.post",
      text: "Hello",
      createdAt: "2024-01-01T00:00:00.000Z",
    });
    const b = await recordCid({
      createdAt: "2024-01-01T00:00:00.000Z",
      text: "Hello",
      $type: "app.bsky.feed.post",
    });
    assert.equal(a, b);
    assert.match(a, /^bafyrei[a-z2-7]{52}$/);
  });

  it("changes with one millisecond of createdAt, and with a reply's parent", async () => {
    const base = { $type: "app.bsky.feed.post", text: "Hello", createdAt: "2024-01-01T00:00:00.000Z" };
    const later = await recordCid({ ...base, createdAt: "2024-01-01T00:00:00.001Z" });
    assert.notEqual(await recordCid(base), later);
    const ref = (cid: string) => ({ uri: "at://did:plc:x/app.bsky.feed.post/3k", cid });
    const one = await recordCid({ ...base, reply: { root: ref(later), parent: ref(later) } });
    const other = await recordCid({
      ...base,
      reply: { root: ref(later), parent: ref(await recordCid(base)) },
    });
    assert.notEqual(one, other);
  });

  it("reads a blob's $link as a CID, as the PDS stores it", async () => {
    const link = "bafkreibme22gw2h7y2h7tg2fhqotaqjucnbc24deqo72b6mkl2egezxhvy";
    const withBlob = (ref: unknown) => ({
      $type: "app.bsky.feed.post",
      text: "",
      createdAt: "2024-01-01T00:00:00.000Z",
      embed: {
        $type: "app.bsky.embed.images",
        images: [{ alt: "", image: { $type: "blob", ref, mimeType: "image/png", size: 1 } }],
      },
    });
    // As a CID the link is 36 bytes in the record; as text it would be a string of 59.
    assert.notEqual(await recordCid(withBlob({ $link: link })), await recordCid(withBlob({ link })));
  });
});
