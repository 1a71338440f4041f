// The XRPC methods a syndicator needs (https://docs.bsky.app/docs/api/), with answers validated.
// XRPC errors are {"error": "<Name>", "message": "<text>"}; both reach the user's message.
import { z } from "zod";
import { SyndicationError } from "../../contract/syndication-error.ts";
import { readJson, refusal, send, type Target, type TargetMessage } from "../shared/http.ts";

const sessionSchema = z.object({
  did: z.string().min(1),
  handle: z.string().min(1),
  accessJwt: z.string().min(1),
  refreshJwt: z.string().min(1),
});
export type BlueskySession = z.output<typeof sessionSchema>;

/** A blob reference, passed back to the PDS exactly as it gave it. */
const blobSchema = z.object({
  blob: z.looseObject({
    $type: z.literal("blob"),
    ref: z.object({ $link: z.string() }),
    mimeType: z.string(),
  }),
});
export type BlobRef = z.output<typeof blobSchema>["blob"];

const recordRefSchema = z.object({ uri: z.string(), cid: z.string() });
export type RecordRef = z.output<typeof recordRefSchema>;
/** A record read back: its strong reference (uri and cid) and its content. */
const storedRecordSchema = recordRefSchema.extend({ value: z.record(z.string(), z.unknown()).optional() });
export type StoredRecord = z.output<typeof storedRecordSchema>;

const recordListSchema = z.object({
  records: z.array(storedRecordSchema),
  cursor: z.string().optional(),
});

/** applyWrites' answer: each create's strong reference, in the order of the writes. */
const appliedSchema = z.object({
  results: z.array(z.looseObject({ uri: z.string().optional(), cid: z.string().optional() })).optional(),
});

const didSchema = z.object({ did: z.string().startsWith("did:") });

const xrpcErrorSchema = z.object({ error: z.string().optional(), message: z.string().optional() });

function xrpcMessage(body: unknown): TargetMessage | undefined {
  const parsed = xrpcErrorSchema.safeParse(body);
  if (!parsed.success) return undefined;
  const { error, message } = parsed.data;
  const text = error && message && message !== error ? `${error}: ${message}` : (message ?? error);
  return { ...(text ? { message: text } : {}), ...(error ? { code: error } : {}) };
}

export class BlueskyApi {
  constructor(
    private readonly serviceUrl: string,
    private readonly target: Target,
  ) {}

  /** Whether the run gave up on this target (its signal fired). */
  get aborted(): boolean {
    return this.target.signal.aborted;
  }

  private async call(nsid: string, init: RequestInit, accessJwt?: string): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set("accept", "application/json");
    if (accessJwt) headers.set("authorization", `Bearer ${accessJwt}`);
    const response = await send(this.target, `${this.serviceUrl}/xrpc/${nsid}`, { ...init, headers });
    if (!response.ok) throw await refusal(this.target, response, xrpcMessage);
    return response;
  }

  private json(nsid: string, body: unknown, accessJwt?: string): Promise<Response> {
    return this.call(
      nsid,
      { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
      accessJwt,
    );
  }

  async createSession(identifier: string, password: string): Promise<BlueskySession> {
    const response = await this.json("com.atproto.server.createSession", { identifier, password });
    return readJson(this.target, response, sessionSchema, "the sign-in");
  }

  /** Who the session's access token stands for (com.atproto.server.getSession): writes nothing. */
  async getSession(session: BlueskySession): Promise<{ did: string; handle: string }> {
    const response = await this.call("com.atproto.server.getSession", { method: "GET" }, session.accessJwt);
    return readJson(
      this.target,
      response,
      z.object({ did: z.string(), handle: z.string() }),
      "the session check",
    );
  }

  /** A new session from the refresh token, as the official client renews one (no sign-in counted). */
  async refreshSession(session: BlueskySession): Promise<BlueskySession> {
    const response = await this.call(
      "com.atproto.server.refreshSession",
      { method: "POST" },
      session.refreshJwt,
    );
    return readJson(this.target, response, sessionSchema, "the session refresh");
  }

  async uploadBlob(
    session: BlueskySession,
    bytes: Uint8Array<ArrayBuffer>,
    mimeType: string,
  ): Promise<BlobRef> {
    const response = await this.call(
      "com.atproto.repo.uploadBlob",
      { method: "POST", headers: { "content-type": mimeType }, body: bytes },
      session.accessJwt,
    );
    return (await readJson(this.target, response, blobSchema, "the image upload")).blob;
  }

  async createRecord(
    session: BlueskySession,
    collection: string,
    rkey: string,
    record: Record<string, unknown>,
  ): Promise<RecordRef> {
    const response = await this.json(
      "com.atproto.repo.createRecord",
      { repo: session.did, collection, rkey, record },
      session.accessJwt,
    );
    return readJson(this.target, response, recordRefSchema, "the new post");
  }

  /**
   * Creates `records` in one commit (com.atproto.repo.applyWrites): all of them or none. Answers
   * each one's uri and cid as the PDS made them, in order.
   */
  async createRecords(
    session: BlueskySession,
    collection: string,
    records: { rkey: string; value: Record<string, unknown> }[],
  ): Promise<{ uri?: string | undefined; cid?: string | undefined }[]> {
    return this.writeRecords(session, collection, [], records);
  }

  /**
   * Deletes `deletes` and then creates `creates` in the session's own repository, in one commit
   * (com.atproto.repo.applyWrites): all or none. Unlike deleteRecord, a record not there fails the
   * whole commit. Answers each write's result in order (a create's uri and cid).
   */
  async writeRecords(
    session: BlueskySession,
    collection: string,
    deletes: readonly string[],
    creates: readonly { rkey: string; value: Record<string, unknown> }[],
  ): Promise<{ uri?: string | undefined; cid?: string | undefined }[]> {
    const writes = [
      ...deletes.map((rkey) => ({ $type: "com.atproto.repo.applyWrites#delete", collection, rkey })),
      ...creates.map(({ rkey, value }) => ({
        $type: "com.atproto.repo.applyWrites#create",
        collection,
        rkey,
        value,
      })),
    ];
    const response = await this.json(
      "com.atproto.repo.applyWrites",
      { repo: session.did, writes },
      session.accessJwt,
    );
    return (await readJson(this.target, response, appliedSchema, "the commit")).results ?? [];
  }

  /**
   * The DID a handle points at, or undefined when it points at nobody (the PDS answers 400). Other
   * failures (no answer, a 5xx) are thrown: the mention may resolve on the next attempt.
   */
  async resolveHandle(handle: string): Promise<string | undefined> {
    const query = new URLSearchParams({ handle });
    let response: Response;
    try {
      response = await this.call(`com.atproto.identity.resolveHandle?${query}`, { method: "GET" });
    } catch (error) {
      if (error instanceof SyndicationError && error.status === 400) return undefined;
      throw error;
    }
    return (await readJson(this.target, response, didSchema, "the handle look-up")).did;
  }

  /** The record at repo/collection/rkey, or undefined when there is none (RecordNotFound). */
  async getRecord(repo: string, collection: string, rkey: string): Promise<StoredRecord | undefined> {
    const query = new URLSearchParams({ repo, collection, rkey });
    let response: Response;
    try {
      response = await this.call(`com.atproto.repo.getRecord?${query}`, { method: "GET" });
    } catch (error) {
      if (error instanceof SyndicationError && error.code === "RecordNotFound") return undefined;
      throw error;
    }
    return readJson(this.target, response, storedRecordSchema, "the record look-up");
  }

  /**
   * Deletes a record of the session's own repository (com.atproto.repo.deleteRecord): the repo is
   * always the session's DID, so nobody else's record can be named. The PDS answers a record that is
   * not there with success ("ensure it doesn't exist"), so a repeated delete succeeds.
   */
  async deleteRecord(session: BlueskySession, collection: string, rkey: string): Promise<void> {
    const response = await this.json(
      "com.atproto.repo.deleteRecord",
      { repo: session.did, collection, rkey },
      session.accessJwt,
    );
    await response.body?.cancel().catch(() => {});
  }

  /** One page of a collection's records in ascending record-key order, after `cursor`. */
  async listRecords(
    repo: string,
    collection: string,
    cursor: string,
  ): Promise<{ records: StoredRecord[]; cursor?: string | undefined }> {
    const query = new URLSearchParams({ repo, collection, limit: "100", reverse: "true", cursor });
    const response = await this.call(`com.atproto.repo.listRecords?${query}`, { method: "GET" });
    return readJson(this.target, response, recordListSchema, "the record list");
  }
}
