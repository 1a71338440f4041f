// Decision 0042: inside Indiekit, the work a request starts (a run, its write-backs, even those
// finishing in the background) reads and writes Indiekit's posts with that request's own token;
// a scheduled run has none (the source's tokenEnv then), and a Micropub server on another origin
// never gets Indiekit's token.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Request } from "express";
import { requestTokenFor, withIndiekitRequestToken } from "./request-token.ts";

/** A request as Indiekit hands it to a plug-in's routes: its session holds the verified token. */
function indiekitRequest(session: { access_token?: unknown } | null, host = "indiekit.example"): Request {
  return {
    session,
    protocol: "https",
    get: (name: string) => (name.toLowerCase() === "host" ? host : undefined),
  } as unknown as Request;
}

const OWN = "https://indiekit.example/micropub";

describe("the request's token for Indiekit's own Micropub endpoint", () => {
  it("is at hand for all the request's work, later turns included, and only there", async () => {
    let seen: Array<string | undefined> = [];
    let background: Promise<string | undefined> = Promise.resolve(undefined);
    withIndiekitRequestToken(indiekitRequest({ access_token: "request-token" }), () => {
      seen = [requestTokenFor(OWN), requestTokenFor("https://elsewhere.example/micropub")];
      background = new Promise((resolve) => setImmediate(() => resolve(requestTokenFor(OWN))));
    });
    assert.deepEqual(seen, ["request-token", undefined], "another server never gets Indiekit's token");
    assert.equal(await background, "request-token", "a write-back finishing later uses it too");
    assert.equal(requestTokenFor(OWN), undefined, "outside a request (a scheduled run): none");
  });

  it("is none when Indiekit let the request through without a token", () => {
    for (const session of [null, {}, { access_token: "" }]) {
      let seen: string | undefined = "unset";
      withIndiekitRequestToken(indiekitRequest(session), () => {
        seen = requestTokenFor(OWN);
      });
      assert.equal(seen, undefined);
    }
  });

  it("is none for an endpoint on the same host under another scheme or port", () => {
    let seen: Array<string | undefined> = [];
    withIndiekitRequestToken(indiekitRequest({ access_token: "t" }), () => {
      seen = [
        requestTokenFor("http://indiekit.example/micropub"),
        requestTokenFor("https://indiekit.example:8443/micropub"),
        requestTokenFor("not a URL"),
      ];
    });
    assert.deepEqual(seen, [undefined, undefined, undefined]);
  });
});
