// Which failed sends need the user (decision 0050): a refused credential, an outcome nobody knows,
// a refusal that will not be retried. A slip either mails the user at every passing 503 or never
// tells them their token was revoked.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { noticeKindOf } from "./failure-notices.ts";

describe("the notice a failed send is", () => {
  it("401 and 403 are a refusal, whatever else is said of the failure", () => {
    assert.equal(noticeKindOf({ status: 401 }), "refused");
    assert.equal(noticeKindOf({ status: 403, permanent: true, unknown: true }), "refused");
  });

  it("an unknown outcome, before a permanent refusal", () => {
    assert.equal(noticeKindOf({ unknown: true }), "unknown_outcome");
    assert.equal(noticeKindOf({ status: 500, unknown: true, permanent: true }), "unknown_outcome");
  });

  it("a permanent failure other than a refusal: retries exhausted", () => {
    assert.equal(noticeKindOf({ status: 422, permanent: true }), "retries_exhausted");
    assert.equal(noticeKindOf({ permanent: true }), "retries_exhausted");
  });

  it("a failure that will be retried by itself needs nobody", () => {
    assert.equal(noticeKindOf({ status: 503 }), undefined);
    assert.equal(noticeKindOf({ status: 429, permanent: false, unknown: false }), undefined);
    assert.equal(noticeKindOf({ status: 400 }), undefined);
    assert.equal(noticeKindOf({}), undefined);
  });
});
