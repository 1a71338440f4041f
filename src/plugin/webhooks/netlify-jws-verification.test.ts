import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  compactJws,
  hmacWith,
  netlifyDeployBody,
  netlifySignature,
  OTHER_SECRET,
  rsaSha256,
  SECRET,
  sha256Hex,
} from "../../../test/helpers/webhook-signers.ts";
import { verifyNetlifyWebhook } from "./netlify.ts";

const body = Buffer.from(netlifyDeployBody());

async function refusal(
  signature: unknown,
  rawBody: Buffer = body,
  { secret }: { secret: string | undefined } = { secret: SECRET },
) {
  const result = await verifyNetlifyWebhook({ signature, rawBody, secret });
  assert.equal(result.ok, false, "the request should have been refused");
  if (result.ok) throw new Error("unreachable");
  assert.ok(!result.reason.includes(SECRET), "a reason must never show the secret");
  return result.reason;
}

describe("Netlify X-Webhook-Signature verification", () => {
  it("accepts Netlify's HS256 JWS over this body, signed with WEBHOOK_SECRET", async () => {
    const result = await verifyNetlifyWebhook({
      signature: netlifySignature(body),
      rawBody: body,
      secret: SECRET,
    });
    assert.deepEqual(result, { ok: true, payload: { iss: "netlify", sha256: sha256Hex(body) } });
  });

  it("accepts extra claims Netlify may add, and an upper-case digest", async () => {
    const signature = compactJws(
      { alg: "HS256", typ: "JWT" },
      { iss: "netlify", sha256: sha256Hex(body).toUpperCase(), iat: Math.floor(Date.now() / 1000) },
      hmacWith("sha256", SECRET),
    );
    const result = await verifyNetlifyWebhook({ signature, rawBody: body, secret: SECRET });
    assert.equal(result.ok, true);
  });

  it("refuses everything when no WEBHOOK_SECRET is configured", async () => {
    assert.match(
      await refusal(netlifySignature(body), body, { secret: undefined }),
      /WEBHOOK_SECRET is not set/,
    );
    assert.match(
      await refusal(netlifySignature(body, ""), body, { secret: "" }),
      /WEBHOOK_SECRET is not set/,
    );
  });

  it("refuses a signature made with another secret", async () => {
    assert.match(
      await refusal(netlifySignature(body, OTHER_SECRET)),
      /not made with this server's WEBHOOK_SECRET/,
    );
  });

  it('refuses alg "none" (an unsigned token)', async () => {
    const unsigned = compactJws(
      { alg: "none", typ: "JWT" },
      { iss: "netlify", sha256: sha256Hex(body) },
      () => Buffer.alloc(0),
    );
    assert.match(unsigned, /\.$/);
    assert.match(await refusal(unsigned), /signed with none; only HS256 is accepted/);
  });

  it('refuses the bare unsigned token "x.y."', async () => {
    assert.match(await refusal("x.y."), /not a well-formed JWS/);
  });

  it("refuses HS512 even with the right secret", async () => {
    const signature = compactJws(
      { alg: "HS512", typ: "JWT" },
      { iss: "netlify", sha256: sha256Hex(body) },
      hmacWith("sha512", SECRET),
    );
    assert.match(await refusal(signature), /signed with HS512; only HS256 is accepted/);
  });

  it("refuses RS256, with a real RSA signature or an HMAC keyed with the secret", async () => {
    const claims = { iss: "netlify", sha256: sha256Hex(body) };
    const rsa = compactJws({ alg: "RS256", typ: "JWT" }, claims, rsaSha256());
    const confused = compactJws({ alg: "RS256", typ: "JWT" }, claims, hmacWith("sha256", SECRET));
    assert.match(await refusal(rsa), /signed with RS256; only HS256 is accepted/);
    assert.match(await refusal(confused), /signed with RS256; only HS256 is accepted/);
  });

  it("refuses a tampered body", async () => {
    const signature = netlifySignature(body);
    const tampered = Buffer.from(body.toString().replace('"state":"ready"', '"state":"ready" '));
    assert.match(await refusal(signature, tampered), /body does not match the sha256 claim/);
  });

  it("refuses a validly signed sha256 claim that is a near miss: same length, last byte off", async () => {
    const digest = sha256Hex(body);
    const off = (hex: string) => (hex === "00" ? "01" : "00");
    for (const nearMiss of [
      `${digest.slice(0, -2)}${off(digest.slice(-2))}`,
      `${off(digest.slice(0, 2))}${digest.slice(2)}`,
    ]) {
      assert.equal(nearMiss.length, digest.length);
      const signature = compactJws(
        { alg: "HS256", typ: "JWT" },
        { iss: "netlify", sha256: nearMiss },
        hmacWith("sha256", SECRET),
      );
      assert.match(await refusal(signature), /body does not match the sha256 claim/, nearMiss);
    }
  });

  it("refuses a genuine signature of one body sent with another body", async () => {
    const preview = Buffer.from(netlifyDeployBody({ context: "deploy-preview", id: "preview-1" }));
    const production = Buffer.from(netlifyDeployBody({ id: "forged-production" }));
    assert.match(await refusal(netlifySignature(preview), production), /another request/);
  });

  it("refuses a wrong iss", async () => {
    const signature = compactJws(
      { alg: "HS256", typ: "JWT" },
      { iss: "not-netlify", sha256: sha256Hex(body) },
      hmacWith("sha256", SECRET),
    );
    assert.match(await refusal(signature), /iss claim is not "netlify"/);
  });

  it("refuses a missing iss", async () => {
    const signature = compactJws(
      { alg: "HS256", typ: "JWT" },
      { sha256: sha256Hex(body) },
      hmacWith("sha256", SECRET),
    );
    assert.match(await refusal(signature), /has no iss claim/);
  });

  it("refuses a missing sha256, and a sha256 that is not a digest", async () => {
    const missing = compactJws({ alg: "HS256", typ: "JWT" }, { iss: "netlify" }, hmacWith("sha256", SECRET));
    assert.match(await refusal(missing), /no sha256 claim/);
    const short = compactJws(
      { alg: "HS256", typ: "JWT" },
      { iss: "netlify", sha256: sha256Hex(body).slice(0, 62) },
      hmacWith("sha256", SECRET),
    );
    assert.match(await refusal(short), /not a SHA-256 hex digest/);
    const numeric = compactJws(
      { alg: "HS256", typ: "JWT" },
      { iss: "netlify", sha256: 42 },
      hmacWith("sha256", SECRET),
    );
    assert.match(await refusal(numeric), /sha256 claim is not a string/);
  });

  it("refuses malformed JWS: wrong part count, bad characters, non-JSON parts", async () => {
    const valid = netlifySignature(body);
    const [header, payload] = valid.split(".");
    for (const malformed of [
      "",
      "not a jws",
      valid.split(".").slice(0, 2).join("."),
      `${valid}.extra`,
      `${header}.${payload}.sig=nature`,
      `${Buffer.from("{not json").toString("base64url")}.${payload}.abc`,
    ]) {
      assert.match(await refusal(malformed), /not a well-formed JWS/, `for ${JSON.stringify(malformed)}`);
    }
  });

  it("refuses a missing header, a repeated header and a non-string value", async () => {
    assert.match(await refusal(undefined), /no X-Webhook-Signature header/);
    for (const value of [[netlifySignature(body), netlifySignature(body)], 42, null, { alg: "HS256" }]) {
      assert.match(await refusal(value), /must be given once/);
    }
  });

  it("refuses an over-long header without parsing it", async () => {
    const long = `${netlifySignature(body)}${"A".repeat(5000)}`;
    assert.match(await refusal(long), /characters long, more than the 2048/);
  });

  it("says what to set: the JWS secret token, to the value of WEBHOOK_SECRET", async () => {
    assert.match(
      await refusal(netlifySignature(body), body, { secret: undefined }),
      /Set it to the JWS secret token configured on Netlify\.$/,
    );
    assert.match(
      await refusal(netlifySignature(body, OTHER_SECRET)),
      /Set the Netlify webhook's JWS secret token to the value of WEBHOOK_SECRET\.$/,
    );
  });

  it("refuses base64 padding and a leading space as not well-formed, before checking the signature", async () => {
    // jose itself would accept the padded signature (its base64url decoder is lenient) and call the
    // space a wrong secret: RFC 7515 §2 base64url has no padding, and the reason must name the fault.
    for (const malformed of [`${netlifySignature(body)}=`, ` ${netlifySignature(body)}`])
      assert.match(await refusal(malformed), /not a well-formed JWS/, JSON.stringify(malformed.slice(0, 3)));
  });

  it("refuses a signed sha256 claim with a digit too many at either end", async () => {
    for (const sha256 of [`${sha256Hex(body)}00`, `0${sha256Hex(body)}`]) {
      const signature = compactJws(
        { alg: "HS256", typ: "JWT" },
        { iss: "netlify", sha256 },
        hmacWith("sha256", SECRET),
      );
      assert.match(await refusal(signature), /not a SHA-256 hex digest/, sha256);
    }
  });

  it("reads a header of exactly 2048 characters (and refuses it for what it holds)", async () => {
    const good = netlifySignature(body);
    const reason = await refusal(`${good}${"A".repeat(2048 - good.length)}`);
    assert.doesNotMatch(reason, /characters long/);
    assert.match(reason, /not made with this server's WEBHOOK_SECRET/);
  });

  it("refuses an expired signature, and one not valid yet, naming the claim", async () => {
    const signed = (claims: Record<string, unknown>) =>
      compactJws(
        { alg: "HS256", typ: "JWT" },
        { iss: "netlify", sha256: sha256Hex(body), ...claims },
        hmacWith("sha256", SECRET),
      );
    const now = Math.floor(Date.now() / 1000);
    assert.match(await refusal(signed({ exp: now - 3600 })), /has expired \(its exp claim is past\)/);
    assert.match(await refusal(signed({ nbf: now + 3600 })), /signed payload's nbf claim is not acceptable/);
  });
});
