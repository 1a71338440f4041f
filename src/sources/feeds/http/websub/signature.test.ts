import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, it } from "node:test";
import { verifyHubSignature } from "./signature.ts";

const body = new TextEncoder().encode("<feed/>");
const sign = (algorithm: string, secret = "s3cret") =>
  `${algorithm}=${createHmac(algorithm, secret).update(body).digest("hex")}`;

describe("X-Hub-Signature", () => {
  for (const algorithm of ["sha1", "sha256", "sha384", "sha512"]) {
    it(`accepts ${algorithm}`, () => assert.equal(verifyHubSignature(sign(algorithm), "s3cret", body), true));
  }

  it("accepts upper-case hex and method", () => {
    assert.equal(verifyHubSignature(sign("sha256").toUpperCase(), "s3cret", body), true);
  });

  it("refuses another secret, another body, no header, an unknown method", () => {
    assert.equal(verifyHubSignature(sign("sha256", "other"), "s3cret", body), false);
    assert.equal(verifyHubSignature(sign("sha256"), "s3cret", new TextEncoder().encode("<feed />")), false);
    assert.equal(verifyHubSignature(undefined, "s3cret", body), false);
    assert.equal(verifyHubSignature(sign("md5"), "s3cret", body), false);
  });

  it("refuses a signature padded or cut to another length", () => {
    const good = sign("sha256");
    assert.equal(verifyHubSignature(`${good}0`, "s3cret", body), false);
    assert.equal(verifyHubSignature(good.slice(0, -2), "s3cret", body), false);
    assert.equal(verifyHubSignature(`sha256=${good.slice(7, 47)}`, "s3cret", body), false);
  });
});
