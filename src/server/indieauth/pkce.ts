// PKCE (RFC 7636) with S256 only: "plain" would hand the verifier to anyone who sees the request.
import { createHash } from "node:crypto";
import { secretsEqual } from "../auth/constant-time.ts";

/** A code verifier or challenge: 43 to 128 characters of the unreserved set (RFC 7636 §4.1). */
export const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;

export function s256(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

/** Whether the verifier the client sends now matches the challenge it sent with the request. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  return PKCE_VALUE.test(verifier) && secretsEqual(s256(verifier), challenge);
}
