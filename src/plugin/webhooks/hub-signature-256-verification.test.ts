import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, it } from "node:test";
import {
  deploymentStatusBody,
  hubSignature256,
  OTHER_SECRET,
  SECRET,
} from "../../../test/helpers/webhook-signers.ts";
import { verifyHmacSignature } from "./hmac.ts";

const body = Buffer.from(deploymentStatusBody());

function refusal(signature: unknown, rawBody: Buffer = body, secret: string | undefined = SECRET): string {
  const result = verifyHmacSignature({ signature, rawBody, secret });
  assert.equal(result.ok, false, "the request should have been refused");
  if (result.ok) throw new Error("unreachable");
  assert.ok(!result.reason.includes(SECRET), "a reason must never show the secret");
  return result.reason;
}

describe("X-Hub-Signature-256 verification", () => {
  it("accepts sha256=<hex HMAC-SHA256 of the body> made with WEBHOOK_SECRET", () => {
    assert.deepEqual(
      verifyHmacSignature({ signature: hubSignature256(body), rawBody: body, secret: SECRET }),
      {
        ok: true,
      },
    );
  });

  it("accepts an upper-case hex digest", () => {
    const upper = `sha256=${hubSignature256(body).slice("sha256=".length).toUpperCase()}`;
    assert.equal(verifyHmacSignature({ signature: upper, rawBody: body, secret: SECRET }).ok, true);
  });

  it("accepts an empty body when it is signed", () => {
    const empty = Buffer.alloc(0);
    assert.equal(
      verifyHmacSignature({ signature: hubSignature256(empty), rawBody: empty, secret: SECRET }).ok,
      true,
    );
  });

  it("refuses a signature made with another secret", () => {
    assert.match(
      refusal(hubSignature256(body, OTHER_SECRET)),
      /does not match the body .*: the secret differs, or the body was changed\.$/,
    );
  });

  it("refuses a near miss: same length, same prefix, only the last byte off", () => {
    const good = hubSignature256(body);
    const last = good.slice(-2);
    const nearMiss = `${good.slice(0, -2)}${last === "00" ? "01" : "00"}`;
    assert.equal(nearMiss.length, good.length);
    assert.match(refusal(nearMiss), /does not match the body/);
    // And the first byte off, so that neither end of the digest is left unchecked.
    const first = good.slice("sha256=".length, "sha256=".length + 2);
    const firstOff = `sha256=${first === "00" ? "01" : "00"}${good.slice("sha256=".length + 2)}`;
    assert.match(refusal(firstOff), /does not match the body/);
  });

  it("refuses a tampered body", () => {
    const tampered = Buffer.from(deploymentStatusBody({ environment: "production " }));
    assert.match(refusal(hubSignature256(body), tampered), /does not match the body/);
  });

  it("refuses everything when no WEBHOOK_SECRET is configured", () => {
    const unset = verifyHmacSignature({ signature: hubSignature256(body), rawBody: body, secret: undefined });
    assert.equal(unset.ok, false);
    assert.match(unset.ok ? "" : unset.reason, /WEBHOOK_SECRET is not set/);
    assert.match(refusal(hubSignature256(body, ""), body, ""), /WEBHOOK_SECRET is not set/);
    // What to do, not only what is wrong.
    assert.match(unset.ok ? "" : unset.reason, /Set it to the secret configured on the webhook\.$/);
  });

  it("refuses a prefix other than sha256=", () => {
    const hex = hubSignature256(body).slice("sha256=".length);
    const sha1 = `sha1=${createHmac("sha1", SECRET).update(body).digest("hex")}`;
    for (const signature of [
      hex,
      `sha512=${hex}`,
      `SHA256=${hex}`,
      `sha256:${hex}`,
      ` sha256=${hex}`,
      sha1,
    ]) {
      assert.match(refusal(signature), /must be "sha256=" followed by the 64 hexadecimal digits/, signature);
    }
  });

  it("refuses a digest of the wrong length or with non-hex digits", () => {
    const hex = hubSignature256(body).slice("sha256=".length);
    const sha512 = createHmac("sha512", SECRET).update(body).digest("hex");
    for (const signature of [
      `sha256=${hex.slice(0, 62)}`,
      `sha256=${hex}00`,
      `sha256=${sha512}`,
      `sha256=${"z".repeat(64)}`,
      "sha256=",
      `sha256=${"a".repeat(10_000)}`,
    ]) {
      assert.match(
        refusal(signature),
        /64 hexadecimal digits of the HMAC-SHA256 of the body\.$/,
        signature.slice(0, 80),
      );
    }
  });

  it("refuses a missing header, a repeated header and a non-string value", () => {
    assert.match(refusal(undefined), /no X-Hub-Signature-256 header/);
    for (const value of [[hubSignature256(body), hubSignature256(body)], 7, null]) {
      assert.match(refusal(value), /must be given once/);
    }
  });

  it("with X-Webhook-Timestamp, accepts only a signature of <timestamp>.<body>", () => {
    const timestamp = "1764300000";
    const signed = `sha256=${createHmac("sha256", SECRET).update(`${timestamp}.`).update(body).digest("hex")}`;
    assert.deepEqual(verifyHmacSignature({ signature: signed, rawBody: body, secret: SECRET, timestamp }), {
      ok: true,
    });
    // The old request replayed with a newer timestamp: the signature no longer matches.
    const replayed = verifyHmacSignature({
      signature: signed,
      rawBody: body,
      secret: SECRET,
      timestamp: "1764399999",
    });
    assert.equal(replayed.ok, false);
    assert.equal(
      replayed.ok ? "" : replayed.reason,
      "The X-Hub-Signature-256 does not match <X-Webhook-Timestamp>.<body> with this server's " +
        "WEBHOOK_SECRET: with X-Webhook-Timestamp, sign the timestamp, a dot and the body.",
    );
    // The body's signature alone does not cover a timestamp, nor the reverse.
    const bodyOnly = verifyHmacSignature({
      signature: hubSignature256(body),
      rawBody: body,
      secret: SECRET,
      timestamp,
    });
    assert.equal(bodyOnly.ok, false);
    assert.match(refusal(signed), /does not match the body with this server's WEBHOOK_SECRET/);
  });
});
