// X-Hub-Signature (W3C WebSub 7.1): `method=signature`, the HMAC of the raw body with the secret we
// gave the hub. Compared in constant time, and only at the digest's exact length, so that neither
// timing nor a truncated or padded signature tells anything about the secret.
import { createHmac, timingSafeEqual } from "node:crypto";

const ALGORITHMS = new Set(["sha1", "sha256", "sha384", "sha512"]);

/**
 * Whether `header` signs `body` with `secret`.
 *
 * @example
 * verifyHubSignature(request.headers["x-hub-signature"], subscription.secret, rawBody);
 */
export function verifyHubSignature(header: string | undefined, secret: string, body: Uint8Array): boolean {
  const match = /^\s*([a-z0-9]+)=([0-9a-f]+)\s*$/i.exec(header ?? "");
  const algorithm = match?.[1]?.toLowerCase();
  const hex = match?.[2];
  if (!algorithm || !hex || !ALGORITHMS.has(algorithm)) return false;
  const expected = createHmac(algorithm, secret).update(body).digest();
  if (hex.length !== expected.length * 2) return false;
  return timingSafeEqual(Buffer.from(hex, "hex"), expected);
}
