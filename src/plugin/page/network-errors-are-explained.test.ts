// Decision 0051: a raw network code is explained: which kind of failure, and at which address.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { errorHelp } from "./error-help.ts";

describe("network errors in words", () => {
  it("names the failure and the address of a syndicator's message", () => {
    assert.deepEqual(
      errorHelp(
        "Social: could not reach http://127.0.0.1:9: fetch failed (connect ECONNREFUSED 127.0.0.1:9)",
      ),
      { kind: "refused", origin: "http://127.0.0.1:9" },
    );
    assert.deepEqual(
      errorHelp(
        "Social: could not reach https://masto.example: fetch failed (getaddrinfo ENOTFOUND masto.example)",
      ),
      { kind: "notFound", origin: "https://masto.example" },
    );
    assert.equal(
      errorHelp("Social: https://masto.example did not answer in time; the request was cancelled")?.kind,
      "timeout",
    );
    assert.equal(
      errorHelp("x: fetch failed (unable to verify: DEPTH_ZERO_SELF_SIGNED_CERT)")?.kind,
      "certificate",
    );
  });

  it("leaves a service's own refusal alone", () => {
    assert.equal(errorHelp("Social: 401 The access token is invalid"), null);
    assert.equal(errorHelp(null), null);
  });
});
