import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { headersForRedirect, sameOrigin } from "./redirect-credentials.ts";

const credentials = {
  Authorization: "Bearer t",
  cookie: "s=1",
  "Proxy-Authorization": "Basic x",
  "X-Api-Key": "k",
  accept: "application/json",
};

describe("credentials on a redirect", () => {
  it("keep going within the origin (a default port written or not is the same port)", () => {
    for (const [from, to] of [
      ["https://blog.example/micropub", "https://blog.example/other?q=1"],
      ["https://blog.example/micropub", "https://BLOG.example:443/micropub"],
      ["http://127.0.0.1:8080/a", "http://127.0.0.1:8080/b"],
    ] as const) {
      assert.ok(sameOrigin(new URL(from), new URL(to)), `${from} → ${to}`);
      assert.deepEqual(
        headersForRedirect(credentials, new URL(from), new URL(to), ["x-api-key"]),
        credentials,
      );
    }
  });

  it("are all dropped when the scheme, the host or the port changes, https to http on the same host too", () => {
    for (const [from, to] of [
      ["https://blog.example/micropub", "http://blog.example/micropub"],
      ["http://blog.example/micropub", "https://blog.example/micropub"],
      ["https://blog.example/micropub", "https://evil.example/micropub"],
      ["https://blog.example/micropub", "https://www.blog.example/micropub"],
      ["http://127.0.0.1:8080/a", "http://127.0.0.1:8081/a"],
      ["https://blog.example/micropub", "https://blog.example:8443/micropub"],
    ] as const) {
      assert.equal(sameOrigin(new URL(from), new URL(to)), false, `${from} → ${to}`);
      assert.deepEqual(headersForRedirect(credentials, new URL(from), new URL(to), ["x-api-key"]), {
        accept: "application/json",
      });
    }
  });

  it("drops a header the caller named only when named", () => {
    const from = new URL("https://a.example/");
    const to = new URL("https://b.example/");
    assert.equal(headersForRedirect(credentials, from, to)["X-Api-Key"], "k");
    assert.equal(headersForRedirect(credentials, from, to, ["X-API-KEY"])["X-Api-Key"], undefined);
  });
});
