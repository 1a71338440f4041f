// Webhook signatures cover the exact bytes the provider sent, so the body must be read raw, once,
// before anything parses it, and bounded so that an unauthenticated caller cannot make us buffer
// an arbitrary amount of data.
import type { IncomingMessage } from "node:http";

/** 100 kB: a Netlify deploy object is a few kB, a GitHub deployment_status event some tens of kB. */
export const DEFAULT_MAX_BODY_BYTES = 100_000;

export interface ReadRawBodyOptions {
  /** The largest body accepted, in bytes. Defaults to DEFAULT_MAX_BODY_BYTES. */
  limit?: number;
}

/**
 * Why a raw body could not be read. `status` and `error` are the HTTP answer a route should give
 * (e.g. `new HttpError(e.status, e.error, e.message, e.headers)`); `message` is safe to show.
 */
export abstract class RawBodyError extends Error {
  abstract readonly status: 400 | 413 | 500;
  abstract readonly error: string;
  /** Response headers the answer should carry. */
  readonly headers: Record<string, string> = {};
}

/** The body is larger than the limit (declared by Content-Length, or counted while streaming). */
export class BodyTooLargeError extends RawBodyError {
  readonly status = 413;
  readonly error = "payload_too_large";
  // The rest of the body is discarded rather than read; closing the connection after the answer
  // stops a sender that keeps streaming from holding it open.
  override readonly headers = { Connection: "close" };
  constructor(readonly limit: number) {
    super(`The request body is larger than the limit of ${limit} bytes. Send a smaller body.`);
    this.name = "BodyTooLargeError";
  }
}

/** The client went away (or the connection failed) before the whole body arrived. */
export class RequestAbortedError extends RawBodyError {
  readonly status = 400;
  readonly error = "invalid_request";
  constructor() {
    super("The request was aborted before its whole body arrived.");
    this.name = "RequestAbortedError";
  }
}

/** Something consumed the body first: a programming error in the route set-up, not the client's. */
export class BodyAlreadyReadError extends RawBodyError {
  readonly status = 500;
  readonly error = "server_error";
  constructor() {
    super(
      "The request body was already read before the webhook route could verify it. " +
        "Mount the webhook routes before any body parser.",
    );
    this.name = "BodyAlreadyReadError";
  }
}

// Requests whose body some caller has started to read; a second reader would get nothing useful.
const requestsBeingRead = new WeakSet<IncomingMessage>();

/**
 * Reads the whole body of `request` as bytes, at most once per request.
 * Rejects with BodyTooLargeError (413) when Content-Length announces more than the limit, before
 * reading anything, or as soon as the bytes received exceed it; with RequestAbortedError (400)
 * when the client hangs up early; with BodyAlreadyReadError (500) when the body was consumed
 * before. After a rejection the rest of the body is discarded.
 */
export function readRawBody(request: IncomingMessage, options: ReadRawBodyOptions = {}): Promise<Buffer> {
  const limit = options.limit ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(limit) || limit < 0) {
    return Promise.reject(
      new TypeError(`readRawBody: limit must be a whole number of bytes, 0 or more (got ${limit}).`),
    );
  }
  if (requestsBeingRead.has(request) || request.readableDidRead || request.readableEnded) {
    return Promise.reject(new BodyAlreadyReadError());
  }
  requestsBeingRead.add(request);

  const declared = declaredLength(request);
  if (declared !== undefined && declared > limit) {
    request.resume();
    return Promise.reject(new BodyTooLargeError(limit));
  }

  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;

    const stopListening = () => {
      request.off("data", onData);
      request.off("end", onEnd);
      request.off("aborted", onAborted);
      request.off("error", onAborted);
      request.off("close", onClose);
    };
    const fail = (error: RawBodyError) => {
      stopListening();
      chunks.length = 0;
      // Keep the stream flowing so the remaining bytes are dropped instead of buffered.
      request.resume();
      reject(error);
    };
    const onData = (data: Buffer | string) => {
      // A string only if someone called setEncoding(); the signature is over bytes either way.
      const chunk = typeof data === "string" ? Buffer.from(data) : data;
      received += chunk.length;
      if (received > limit) fail(new BodyTooLargeError(limit));
      else chunks.push(chunk);
    };
    const onEnd = () => {
      stopListening();
      resolve(Buffer.concat(chunks, received));
    };
    const onAborted = () => fail(new RequestAbortedError());
    // 'close' without 'end' is how a hang-up shows when no 'aborted' or 'error' was emitted.
    const onClose = () => {
      if (!request.complete) fail(new RequestAbortedError());
    };

    request.on("data", onData);
    request.on("end", onEnd);
    request.on("aborted", onAborted);
    request.on("error", onAborted);
    request.on("close", onClose);
  });
}

function declaredLength(request: IncomingMessage): number | undefined {
  const header = request.headers["content-length"];
  // Node's parser already refuses malformed lengths; anything else means "not declared".
  if (header === undefined || !/^\d+$/.test(header)) return undefined;
  return Number(header);
}
