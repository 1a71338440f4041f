// GitHub-style webhook signatures: X-Hub-Signature-256 is "sha256=" followed by the hex
// HMAC-SHA256 of the raw body, keyed with the shared secret. Used by the GitHub route and by the
// generic webhook, so any deploy system that can compute an HMAC can start a run.
import { createHmac, timingSafeEqual } from "node:crypto";

/** Lower-case, as Node presents header names. */
export const HUB_SIGNATURE_HEADER = "x-hub-signature-256";

const SIGNATURE_FORMAT = /^sha256=([0-9a-fA-F]{64})$/;
/** Far longer than "sha256=" and 64 digits: refused without being looked at further. */
const MAX_HEADER_LENGTH = 200;

export type HmacVerification = { ok: true } | { ok: false; reason: string };

export interface HmacWebhookRequest {
  /** The X-Hub-Signature-256 header as received: anything but one string is refused. */
  signature: unknown;
  /** The body exactly as received (see readRawBody). */
  rawBody: Uint8Array;
  /** WEBHOOK_SECRET; undefined or empty when not configured, which refuses every webhook. */
  secret: string | undefined;
  /**
   * The generic webhook's X-Webhook-Timestamp, when sent: the signature then covers
   * "<timestamp>.<body>", so that the timestamp cannot be changed to make an old request look new.
   */
  timestamp?: string;
}

/** Verifies X-Hub-Signature-256. `reason` suits error_description and never holds the secret. */
export function verifyHmacSignature({
  signature,
  rawBody,
  secret,
  timestamp,
}: HmacWebhookRequest): HmacVerification {
  if (!secret) {
    return refuse(
      "WEBHOOK_SECRET is not set on the server, so no webhook can be verified. " +
        "Set it to the secret configured on the webhook.",
    );
  }
  if (signature === undefined) {
    return refuse("The request has no X-Hub-Signature-256 header. Set a secret on the webhook.");
  }
  if (typeof signature !== "string") {
    return refuse("The X-Hub-Signature-256 header must be given once.");
  }
  const match = signature.length <= MAX_HEADER_LENGTH ? SIGNATURE_FORMAT.exec(signature) : null;
  if (!match?.[1]) {
    return refuse(
      'The X-Hub-Signature-256 header must be "sha256=" followed by the 64 hexadecimal digits ' +
        "of the HMAC-SHA256 of the body.",
    );
  }
  const given = Buffer.from(match[1], "hex");
  const hmac = createHmac("sha256", secret);
  if (timestamp !== undefined) hmac.update(`${timestamp}.`);
  const expected = hmac.update(rawBody).digest();
  // Both are 32 bytes (the format check saw 64 hex digits), as timingSafeEqual requires.
  if (!timingSafeEqual(given, expected)) {
    return refuse(
      timestamp === undefined
        ? "The X-Hub-Signature-256 does not match the body with this server's WEBHOOK_SECRET: " +
            "the secret differs, or the body was changed."
        : "The X-Hub-Signature-256 does not match <X-Webhook-Timestamp>.<body> with this server's " +
            "WEBHOOK_SECRET: with X-Webhook-Timestamp, sign the timestamp, a dot and the body.",
    );
  }
  return { ok: true };
}

function refuse(reason: string): HmacVerification {
  return { ok: false, reason };
}
