import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { s256, verifierMatches } from "./pkce.ts";

// RFC 7636, Appendix B: the worked example of S256.
const RFC_VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const RFC_CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

/** A verifier and the challenge made from it, whatever the verifier holds. */
const pair = (verifier: string) => [verifier, s256(verifier)] as const;

describe("PKCE S256 (RFC 7636)", () => {
  it("makes the challenge of RFC 7636's example and accepts its verifier", () => {
    assert.equal(s256(RFC_VERIFIER), RFC_CHALLENGE);
    assert.equal(verifierMatches(RFC_VERIFIER, RFC_CHALLENGE), true);
  });

  it("refuses another verifier, and the verifier sent as its own challenge (plain)", () => {
    assert.equal(verifierMatches(`${RFC_VERIFIER.slice(0, -1)}R`, RFC_CHALLENGE), false);
    assert.equal(verifierMatches(RFC_VERIFIER, RFC_VERIFIER), false);
    assert.equal(verifierMatches(RFC_VERIFIER, ""), false);
  });

  it("accepts 43 to 128 characters of the unreserved set, and nothing shorter or longer", () => {
    assert.equal(verifierMatches(...pair("a".repeat(43))), true);
    assert.equal(verifierMatches(...pair(`${"Az09".repeat(31)}-._~`)), true);
    assert.equal(verifierMatches(...pair("a".repeat(42))), false);
    assert.equal(verifierMatches(...pair("a".repeat(129))), false);
  });

  it("refuses a verifier with a character outside the unreserved set, wherever it is", () => {
    for (const verifier of [
      `+${"a".repeat(43)}`,
      `${"a".repeat(43)}/`,
      `${"a".repeat(20)} ${"a".repeat(22)}`,
      `${"a".repeat(43)}\n`,
      `${"a".repeat(42)}=`,
    ])
      assert.equal(verifierMatches(...pair(verifier)), false, JSON.stringify(verifier));
  });
});
