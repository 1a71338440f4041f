// The CID a PDS gives a record (https://atproto.com/specs/data-model): the record in DAG-CBOR, its
// SHA-256, as a CIDv1 of the dag-cbor codec. Computed here so that the posts of a thread can name the
// post they answer before any of them is written (decision 0055). The record is written as JSON, where a
// CID is {"$link": "…"} and bytes are {"$bytes": "<base64>"}: both become what they stand for first.
import * as dagCbor from "@ipld/dag-cbor";
import { CID } from "multiformats/cid";
import { sha256 } from "multiformats/hashes/sha2";

/** The record as the data model has it: links as CIDs, bytes as bytes. */
function toDataModel(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toDataModel);
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value);
  if (entries.length === 1) {
    const [[key, inner] = []] = entries;
    if (key === "$link" && typeof inner === "string") return CID.parse(inner);
    if (key === "$bytes" && typeof inner === "string") return new Uint8Array(Buffer.from(inner, "base64"));
  }
  return Object.fromEntries(
    entries.filter(([, inner]) => inner !== undefined).map(([key, inner]) => [key, toDataModel(inner)]),
  );
}

export async function recordCid(record: Record<string, unknown>): Promise<string> {
  const bytes = dagCbor.encode(toDataModel(record));
  return CID.createV1(dagCbor.code, await sha256.digest(bytes)).toString();
}
