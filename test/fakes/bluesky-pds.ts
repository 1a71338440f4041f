// A fake Bluesky PDS speaking the XRPC methods a syndicator uses, with the PDS's answers and error
// shapes ({"error": "<Name>", "message": "<text>"}): createSession, uploadBlob, createRecord (with
// the app.bsky.feed.post checks that matter: 300 graphemes, 3000 bytes, blobs that exist and are
// small enough), getRecord, listRecords (cursor and reverse as the PDS pages them), deleteRecord
// (a record not there is success, another account's repo 401, an unknown one 403 AccountNotFound,
// as @atproto/pds's handler answers), applyWrites (creates and deletes in one commit, all or none)
// and resolveHandle. A createRecord at a record key already taken answers as today's PDS
// does: 500 InternalServerError (bluesky-social/atproto#3718, indigo#873); a later PDS may answer
// with an explicit error instead, which `duplicateRecordError` can imitate.
import { createHash, randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { bearerToken, hold, listen, readBody, sameSecret, sendJson } from "../../dev/sandbox/http-kit.ts";
import { recordCid } from "../../src/syndicators/bluesky/record-cid.ts";

export interface FakePdsOptions {
  handle: string;
  password: string;
  did?: string;
  duplicateRecordError?: { status: number; error: string; message: string };
  /** Other accounts the PDS can resolve by handle (com.atproto.identity.resolveHandle): handle → DID. */
  knownHandles?: Record<string, string>;
}

export interface StoredBlob {
  cid: string;
  mimeType: string;
  size: number;
  bytes: Buffer;
}

export interface StoredRecord {
  uri: string;
  cid: string;
  collection: string;
  rkey: string;
  value: Record<string, unknown>;
}

export interface PdsBehaviour {
  /** The XRPC method, e.g. "com.atproto.repo.createRecord". */
  nsid: string;
  status?: number;
  body?: unknown;
  hangMs?: number;
  times?: number;
}

export interface FakePds {
  url: string;
  did: string;
  handle: string;
  /** Successful sign-ins. */
  sessions: string[];
  /** Refresh tokens revoked by com.atproto.server.deleteSession. */
  deletedSessions: string[];
  /** Successful com.atproto.server.refreshSession calls. */
  refreshes: string[];
  blobs: StoredBlob[];
  records: StoredRecord[];
  /** Every XRPC call with the status it got. */
  calls: { nsid: string; status: number; body?: unknown }[];
  /** A post of another account (a DID in `knownHandles`), for likes, reposts and replies to find. */
  seedRecord(repo: string, collection: string, rkey: string, value: Record<string, unknown>): StoredRecord;
  /** Makes every access token issued so far expired (ExpiredToken); with `refresh`, the refresh tokens too. */
  expireSessions(options?: { refresh?: boolean }): void;
  setBehaviour(behaviour: PdsBehaviour | null): void;
  close(): Promise<void>;
}

const base32 = "abcdefghijklmnopqrstuvwxyz234567";

/** A CIDv1-looking string ("b" + base32 of a sha-256): unique per content, which is all we need. */
function fakeCid(prefix: string, bytes: Buffer): string {
  const digest = createHash("sha256").update(bytes).digest();
  let bits = 0;
  let value = 0;
  let text = "";
  for (const byte of digest) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      text += base32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return `${prefix}${text}`;
}

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
const recordKey = /^[a-zA-Z0-9_~.:-]{1,512}$/;

class XrpcError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

const invalid = (message: string) => new XrpcError(400, "InvalidRequest", message);

export async function startFakePds(options: FakePdsOptions): Promise<FakePds> {
  const did = options.did ?? "did:plc:fakepds0000000000000000";
  const sessions: string[] = [];
  const refreshes: string[] = [];
  /** Refresh tokens still good; a refresh uses one up, as the PDS rotates them. */
  const refreshTokens = new Set<string>();
  /** Refresh tokens revoked by com.atproto.server.deleteSession. */
  const deletedSessions: string[] = [];
  const blobs: StoredBlob[] = [];
  const records: StoredRecord[] = [];
  /** Other accounts' records, by repo DID. */
  const others: (StoredRecord & { repo: string })[] = [];
  const calls: FakePds["calls"] = [];
  const tokens = new Map<string, { expired: boolean }>();
  let behaviour: PdsBehaviour | null = null;
  let behaviourUses = 0;

  function authenticate(request: IncomingMessage): void {
    const token = bearerToken(request);
    if (!token) throw new XrpcError(401, "AuthenticationRequired", "Authentication Required");
    const known = [...tokens.entries()].find(([issued]) => sameSecret(token, issued))?.[1];
    if (!known) throw new XrpcError(401, "InvalidToken", "Token could not be verified");
    if (known.expired) throw new XrpcError(400, "ExpiredToken", "Token has expired");
  }

  async function jsonBody(request: IncomingMessage): Promise<Record<string, unknown>> {
    const text = (await readBody(request, 1024 * 1024)).toString("utf8");
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
        return parsed as Record<string, unknown>;
      }
    } catch {}
    throw invalid("Request body must be a JSON object");
  }

  function checkPost(record: Record<string, unknown>): void {
    const where = "Invalid app.bsky.feed.post record";
    if (typeof record.text !== "string") throw invalid(`${where}: Record must have the property "text"`);
    if (Array.from(segmenter.segment(record.text)).length > 300) {
      throw invalid(`${where}: Record/text must not be longer than 300 graphemes`);
    }
    if (Buffer.byteLength(record.text) > 3000) {
      throw invalid(`${where}: Record/text must not be longer than 3000 characters`);
    }
    if (typeof record.createdAt !== "string" || Number.isNaN(Date.parse(record.createdAt))) {
      throw invalid(`${where}: Record must have the property "createdAt"`);
    }
    const embed = record.embed as { $type?: string; images?: unknown; external?: unknown } | undefined;
    if (embed?.$type === "app.bsky.embed.images") {
      const images = Array.isArray(embed.images) ? embed.images : [];
      if (images.length > 4)
        throw invalid(`${where}: Record/embed/images must not have more than 4 elements`);
      for (const [index, image] of images.entries()) {
        const { alt, image: ref } = image as { alt?: unknown; image?: { ref?: { $link?: string } } };
        if (typeof alt !== "string")
          throw invalid(`${where}: Record/embed/images/${index} must have the property "alt"`);
        const cid = ref?.ref?.$link ?? "";
        const blob = blobs.find((candidate) => candidate.cid === cid);
        if (!blob) throw invalid(`Could not find blob: ${cid}`);
        if (blob.size > 1_000_000) {
          throw new XrpcError(
            400,
            "BlobTooLarge",
            `This file is too large. It is ${blob.size} bytes but the maximum size is 1000000 bytes.`,
          );
        }
      }
    } else if (embed?.$type === "app.bsky.embed.external") {
      const external = embed.external as
        | { uri?: unknown; title?: unknown; description?: unknown }
        | undefined;
      for (const property of ["uri", "title", "description"] as const) {
        if (typeof external?.[property] !== "string") {
          throw invalid(`${where}: Record/embed/external must have the property "${property}"`);
        }
      }
    }
  }

  function newSession() {
    const accessJwt = `access-${randomBytes(12).toString("hex")}`;
    const refreshJwt = `refresh-${randomBytes(12).toString("hex")}`;
    tokens.set(accessJwt, { expired: false });
    refreshTokens.add(refreshJwt);
    return { did, handle: options.handle, accessJwt, refreshJwt, active: true };
  }

  async function call(nsid: string, request: IncomingMessage, url: URL): Promise<unknown> {
    switch (nsid) {
      case "com.atproto.server.createSession": {
        const body = await jsonBody(request);
        if (typeof body.identifier !== "string") throw invalid('Input must have the property "identifier"');
        if (typeof body.password !== "string") throw invalid('Input must have the property "password"');
        const identifier = body.identifier.toLowerCase();
        const known = identifier === options.handle.toLowerCase() || identifier === did;
        if (!known || !sameSecret(body.password, options.password)) {
          throw new XrpcError(401, "AuthenticationRequired", "Invalid identifier or password");
        }
        const session = newSession();
        sessions.push(session.accessJwt);
        return session;
      }
      case "com.atproto.server.refreshSession": {
        const presented = bearerToken(request) ?? "";
        const known = [...refreshTokens].find((token) => sameSecret(presented, token));
        if (!known) throw new XrpcError(400, "ExpiredToken", "Token has been revoked");
        refreshTokens.delete(known);
        const session = newSession();
        refreshes.push(session.accessJwt);
        return session;
      }
      case "com.atproto.server.deleteSession": {
        // @atproto/pds: deleteSession is authenticated by the refresh token, which it revokes.
        const presented = bearerToken(request) ?? "";
        const known = [...refreshTokens].find((token) => sameSecret(presented, token));
        if (!known) throw new XrpcError(401, "InvalidToken", "Token could not be verified");
        refreshTokens.delete(known);
        deletedSessions.push(known);
        return {};
      }
      case "com.atproto.server.getSession": {
        authenticate(request);
        return { handle: options.handle, did, active: true };
      }
      case "com.atproto.repo.uploadBlob": {
        authenticate(request);
        const bytes = await readBody(request, 50 * 1024 * 1024);
        const mimeType = request.headers["content-type"] ?? "application/octet-stream";
        const blob = { cid: fakeCid("bafkrei", bytes), mimeType, size: bytes.length, bytes };
        blobs.push(blob);
        return { blob: { $type: "blob", ref: { $link: blob.cid }, mimeType, size: blob.size } };
      }
      case "com.atproto.repo.createRecord": {
        authenticate(request);
        const body = await jsonBody(request);
        if (body.repo !== did && body.repo !== options.handle) {
          throw new XrpcError(401, "AuthenticationRequired", "Authentication Required");
        }
        const collection = String(body.collection ?? "");
        const record = body.record as Record<string, unknown> | undefined;
        if (!record || typeof record !== "object") throw invalid('Input must have the property "record"');
        if (record.$type !== collection)
          throw invalid(`Invalid $type: expected ${collection}, got ${String(record.$type)}`);
        if (collection === "app.bsky.feed.post") checkPost(record);
        const rkey = typeof body.rkey === "string" ? body.rkey : randomBytes(7).toString("hex");
        if (!recordKey.test(rkey) || rkey === "." || rkey === "..")
          throw invalid("record key syntax not valid (regex)");
        if (records.some((stored) => stored.collection === collection && stored.rkey === rkey)) {
          const duplicate = options.duplicateRecordError;
          if (duplicate) throw new XrpcError(duplicate.status, duplicate.error, duplicate.message);
          throw new XrpcError(500, "InternalServerError", "Internal Server Error");
        }
        const stored: StoredRecord = {
          uri: `at://${did}/${collection}/${rkey}`,
          cid: fakeCid("bafyrei", Buffer.from(JSON.stringify(record))),
          collection,
          rkey,
          value: record,
        };
        records.push(stored);
        return {
          uri: stored.uri,
          cid: stored.cid,
          commit: { cid: fakeCid("bafyrei", Buffer.from(stored.uri)), rev: "3lfakerev0000" },
          validationStatus: "valid",
        };
      }
      case "com.atproto.repo.applyWrites": {
        // @atproto/pds applyWrites: every write in one commit, all or none. A create at a taken key
        // fails it as createRecord does; a delete of a record not there fails it too (the MST's
        // "Could not find a record with key", answered 500), unlike deleteRecord's success.
        authenticate(request);
        const body = await jsonBody(request);
        if (body.repo !== did && body.repo !== options.handle) {
          throw new XrpcError(401, "AuthenticationRequired", "Authentication Required");
        }
        const writes = Array.isArray(body.writes) ? (body.writes as Record<string, unknown>[]) : [];
        if (writes.length > 200) throw invalid("Too many writes. Max: 200");
        const after = [...records];
        const results: Record<string, unknown>[] = [];
        for (const write of writes) {
          const collection = String(write.collection ?? "");
          const rkey = typeof write.rkey === "string" ? write.rkey : randomBytes(7).toString("hex");
          const at = after.findIndex((stored) => stored.collection === collection && stored.rkey === rkey);
          if (write.$type === "com.atproto.repo.applyWrites#delete") {
            if (at < 0) throw new XrpcError(500, "InternalServerError", "Internal Server Error");
            after.splice(at, 1);
            results.push({ $type: "com.atproto.repo.applyWrites#deleteResult" });
            continue;
          }
          if (write.$type !== "com.atproto.repo.applyWrites#create") throw invalid("Unsupported write");
          const record = write.value as Record<string, unknown> | undefined;
          if (!record || typeof record !== "object") throw invalid('Input must have the property "value"');
          if (collection === "app.bsky.feed.post") checkPost(record);
          if (at >= 0) throw new XrpcError(500, "InternalServerError", "Internal Server Error");
          // The CID the PDS gives a record: its DAG-CBOR's SHA-256 (the data model spec).
          const stored: StoredRecord = {
            uri: `at://${did}/${collection}/${rkey}`,
            cid: await recordCid(record),
            collection,
            rkey,
            value: record,
          };
          after.push(stored);
          results.push({
            $type: "com.atproto.repo.applyWrites#createResult",
            uri: stored.uri,
            cid: stored.cid,
            validationStatus: "valid",
          });
        }
        records.splice(0, records.length, ...after);
        return {
          commit: { cid: fakeCid("bafyrei", Buffer.from(JSON.stringify(results))), rev: "3lfakerev0002" },
          results,
        };
      }
      case "com.atproto.repo.deleteRecord": {
        authenticate(request);
        const body = await jsonBody(request);
        const known = Object.values(options.knownHandles ?? {}).includes(String(body.repo));
        if (body.repo !== did && body.repo !== options.handle) {
          if (known || others.some((other) => other.repo === body.repo)) {
            throw new XrpcError(401, "AuthenticationRequired", "Authentication Required");
          }
          throw new XrpcError(403, "AccountNotFound", "Account not found");
        }
        const index = records.findIndex(
          (stored) => stored.collection === body.collection && stored.rkey === body.rkey,
        );
        // "Delete a repository record, or ensure it doesn't exist": no record, no commit, still 200.
        if (index < 0) return {};
        const [removed] = records.splice(index, 1);
        return {
          commit: { cid: fakeCid("bafyrei", Buffer.from(`deleted ${removed?.uri}`)), rev: "3lfakerev0001" },
        };
      }
      case "com.atproto.repo.listRecords": {
        const repo = url.searchParams.get("repo");
        const collection = url.searchParams.get("collection");
        if (!repo || !collection) throw invalid("Params must have the properties repo and collection");
        if (repo !== did && repo !== options.handle) throw invalid(`Could not find repo: ${repo}`);
        const limit = Number(url.searchParams.get("limit") ?? 50);
        const reverse = url.searchParams.get("reverse") === "true";
        const cursor = url.searchParams.get("cursor");
        // Ordered by record key, newest (highest) first unless `reverse`; the cursor is the last key.
        const page = records
          .filter((stored) => stored.collection === collection)
          .filter((stored) => cursor === null || (reverse ? stored.rkey > cursor : stored.rkey < cursor))
          .sort((a, b) => (a.rkey < b.rkey ? -1 : a.rkey > b.rkey ? 1 : 0) * (reverse ? 1 : -1))
          .slice(0, limit);
        return {
          records: page.map((stored) => ({ uri: stored.uri, cid: stored.cid, value: stored.value })),
          ...(page.length > 0 ? { cursor: page.at(-1)?.rkey } : {}),
        };
      }
      case "com.atproto.identity.resolveHandle": {
        const handle = url.searchParams.get("handle")?.toLowerCase() ?? "";
        const known = handle === options.handle.toLowerCase() ? did : options.knownHandles?.[handle];
        if (!known) throw invalid("Unable to resolve handle");
        return { did: known };
      }
      case "com.atproto.repo.getRecord": {
        const repo = url.searchParams.get("repo");
        const collection = url.searchParams.get("collection");
        const rkey = url.searchParams.get("rkey");
        if (!repo || !collection || !rkey)
          throw invalid("Params must have the properties repo, collection and rkey");
        const stored =
          repo === did || repo === options.handle
            ? records.find((candidate) => candidate.collection === collection && candidate.rkey === rkey)
            : others.find((r) => r.repo === repo && r.collection === collection && r.rkey === rkey);
        if (!stored)
          throw new XrpcError(
            400,
            "RecordNotFound",
            `Could not locate record: at://${repo}/${collection}/${rkey}`,
          );
        return { uri: stored.uri, cid: stored.cid, value: stored.value };
      }
      default:
        throw new XrpcError(501, "MethodNotImplemented", "Method Not Implemented");
    }
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://fake");
    // The fake also stands in for the PLC directory: GET /<did> answers the DID document as
    // plc.directory does (web.plc.directory/api/redoc#operation/ResolveDid), naming this PDS.
    if (request.method === "GET" && url.pathname.startsWith("/did:")) {
      const asked = decodeURIComponent(url.pathname.slice(1));
      if (asked !== did) {
        sendJson(response, 404, { message: `DID not registered: ${asked}` });
        return;
      }
      sendJson(response, 200, {
        "@context": ["https://www.w3.org/ns/did/v1"],
        id: did,
        alsoKnownAs: [`at://${options.handle}`],
        verificationMethod: [],
        service: [{ id: "#atproto_pds", type: "AtprotoPersonalDataServer", serviceEndpoint: running.url }],
      });
      return;
    }
    const nsid = url.pathname.replace(/^\/xrpc\//, "");
    const special =
      behaviour &&
      behaviour.nsid === nsid &&
      (behaviour.times === undefined || behaviourUses++ < behaviour.times)
        ? behaviour
        : null;
    if (special?.hangMs !== undefined && !(await hold(response, special.hangMs))) return;
    if (special?.status !== undefined) {
      request.resume();
      calls.push({ nsid, status: special.status, body: special.body });
      sendJson(
        response,
        special.status,
        special.body ?? { error: "InternalServerError", message: "Internal Server Error" },
      );
      return;
    }
    try {
      const body = await call(nsid, request, url);
      calls.push({ nsid, status: 200 });
      sendJson(response, 200, body);
    } catch (error) {
      if (!(error instanceof XrpcError)) throw error;
      request.resume();
      const body = { error: error.error, message: error.message };
      calls.push({ nsid, status: error.status, body });
      sendJson(response, error.status, body);
    }
  }

  const running = await listen(handle);
  return {
    url: running.url,
    did,
    handle: options.handle,
    sessions,
    deletedSessions,
    refreshes,
    blobs,
    records,
    calls,
    seedRecord(repo, collection, rkey, value) {
      const stored = {
        repo,
        uri: `at://${repo}/${collection}/${rkey}`,
        cid: fakeCid("bafyrei", Buffer.from(JSON.stringify(value))),
        collection,
        rkey,
        value,
      };
      others.push(stored);
      return stored;
    },
    expireSessions({ refresh = false } = {}) {
      for (const token of tokens.values()) token.expired = true;
      if (refresh) refreshTokens.clear();
    },
    setBehaviour(next) {
      behaviour = next;
      behaviourUses = 0;
    },
    close: running.close,
  };
}
