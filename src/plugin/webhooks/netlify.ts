// Netlify signs each outgoing deploy notification with a JWS in X-Webhook-Signature: a JWT signed
// HS256 with the "JWS secret token" set on the notification, whose payload holds iss "netlify" and
// sha256, the hex SHA-256 digest of the request body. The signature alone proves only that someone
// with the secret signed *something*; the sha256 claim is what ties it to this body.
import { createHash, timingSafeEqual } from "node:crypto";
import { decodeProtectedHeader, errors, jwtVerify } from "jose";
import { z } from "zod";
import { shown } from "./decision.ts";

/** The header Netlify puts its JWS in (lower-case, as Node presents header names). */
export const NETLIFY_SIGNATURE_HEADER = "x-webhook-signature";
export const NETLIFY_ISSUER = "netlify";
/** A Netlify JWS is about 200 characters; anything far longer is not one and is not parsed. */
export const MAX_NETLIFY_SIGNATURE_LENGTH = 2048;

// HS256 only: accepting what the token's header asks for would let a forger pick "none", or an
// asymmetric algorithm keyed with our secret.
const ACCEPTED_ALGORITHMS = ["HS256"];
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

const signedClaimsSchema = z.looseObject({
  iss: z.literal(NETLIFY_ISSUER),
  sha256: z
    .string({
      error: (issue) =>
        issue.input === undefined
          ? "The signed payload has no sha256 claim, so the signature does not vouch for this body."
          : "The signed sha256 claim is not a string.",
    })
    .regex(/^[0-9a-fA-F]{64}$/, {
      error: "The signed sha256 claim is not a SHA-256 hex digest (64 hexadecimal digits).",
    }),
});

/** The verified payload of Netlify's signature. */
export type NetlifySignedClaims = z.infer<typeof signedClaimsSchema>;

export type NetlifyVerification = { ok: true; payload: NetlifySignedClaims } | { ok: false; reason: string };

export interface NetlifyWebhookRequest {
  /** The X-Webhook-Signature header as received: anything but one string is refused. */
  signature: unknown;
  /** The body exactly as received (see readRawBody). */
  rawBody: Uint8Array;
  /** WEBHOOK_SECRET; undefined or empty when not configured, which refuses every webhook. */
  secret: string | undefined;
}

/**
 * Verifies a Netlify outgoing webhook. `reason` is a sentence fit for error_description; it
 * never contains the secret. Refusals should be answered 401.
 */
export async function verifyNetlifyWebhook({
  signature,
  rawBody,
  secret,
}: NetlifyWebhookRequest): Promise<NetlifyVerification> {
  if (!secret) {
    return refuse(
      "WEBHOOK_SECRET is not set on the server, so no webhook can be verified. " +
        "Set it to the JWS secret token configured on Netlify.",
    );
  }
  if (signature === undefined) {
    return refuse(
      "The request has no X-Webhook-Signature header. Set a JWS secret token on the Netlify webhook.",
    );
  }
  if (typeof signature !== "string") {
    return refuse("The X-Webhook-Signature header must be given once, as a single JWS.");
  }
  if (signature.length > MAX_NETLIFY_SIGNATURE_LENGTH) {
    return refuse(
      `The X-Webhook-Signature header is ${signature.length} characters long, ` +
        `more than the ${MAX_NETLIFY_SIGNATURE_LENGTH} a Netlify signature can be.`,
    );
  }
  if (!COMPACT_JWS.test(signature)) return refuse(MALFORMED);

  let claims: unknown;
  try {
    const key = new TextEncoder().encode(secret);
    ({ payload: claims } = await jwtVerify(signature, key, {
      algorithms: ACCEPTED_ALGORITHMS,
      issuer: NETLIFY_ISSUER,
    }));
  } catch (error) {
    if (error instanceof errors.JOSEError) return refuse(reasonFor(error, signature));
    throw error;
  }

  const parsed = signedClaimsSchema.safeParse(claims);
  if (!parsed.success) return refuse(parsed.error.issues[0]?.message ?? MALFORMED);

  const signedDigest = Buffer.from(parsed.data.sha256, "hex");
  const bodyDigest = createHash("sha256").update(rawBody).digest();
  // Both are 32 bytes (the claim was checked to be 64 hex digits), as timingSafeEqual requires.
  if (!timingSafeEqual(signedDigest, bodyDigest)) {
    return refuse(
      "The body does not match the sha256 claim of its signature: " +
        "the body was changed, or the signature belongs to another request.",
    );
  }
  return { ok: true, payload: parsed.data };
}

const MALFORMED =
  "The X-Webhook-Signature header is not a well-formed JWS (header.payload.signature, each base64url-encoded).";

function refuse(reason: string): NetlifyVerification {
  return { ok: false, reason };
}

function reasonFor(error: InstanceType<typeof errors.JOSEError>, signature: string): string {
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return `The X-Webhook-Signature is signed with ${algorithmOf(signature)}; only HS256 is accepted.`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return (
      "The X-Webhook-Signature was not made with this server's WEBHOOK_SECRET. " +
      "Set the Netlify webhook's JWS secret token to the value of WEBHOOK_SECRET."
    );
  }
  if (error instanceof errors.JWTExpired)
    return "The X-Webhook-Signature has expired (its exp claim is past).";
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "iss") {
      return error.reason === "missing"
        ? `The signed payload has no iss claim; Netlify signs with iss "${NETLIFY_ISSUER}".`
        : `The signed payload's iss claim is not "${NETLIFY_ISSUER}", so it was not issued by Netlify.`;
    }
    return `The signed payload's ${shown(error.claim, 20)} claim is not acceptable (${shown(error.reason, 40)}).`;
  }
  return MALFORMED;
}

function algorithmOf(signature: string): string {
  try {
    const { alg } = decodeProtectedHeader(signature);
    return typeof alg === "string" ? shown(alg, 20) : "an unnamed algorithm";
  } catch {
    return "an unreadable algorithm";
  }
}
