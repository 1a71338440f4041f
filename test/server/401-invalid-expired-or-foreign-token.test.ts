// Missing or invalid credentials (decision 0002): 401 {"error":"unauthorized","error_description":…}
// with a description that says what is wrong, for every way a token can be sent.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { SignJWT, UnsecuredJWT } from "jose";
import TestPlugin from "../fixtures/test-plugin/index.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

describe("tokens the server refuses", () => {
  let server: TestServer;
  let key: Uint8Array;
  before(async () => {
    server = await startTestServer({ database: false, config: { plugins: [] }, plugins: [new TestPlugin()] });
    key = new TextEncoder().encode(server.host.hostConfig.secrets.secret);
  });
  after(() => server.close());

  const sign = (
    claims: Record<string, unknown>,
    options: { expires?: string | number; secret?: Uint8Array } = {},
  ) =>
    new SignJWT({
      me: server.host.publication.me,
      scope: "create update",
      client_id: "test",
      jti: `test-${Math.random()}`,
      ...claims,
    })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(options.expires ?? "1h")
      .setAudience("access")
      .sign(options.secret ?? key);

  async function refusal(token: string, way: "bearer" | "form" | "query" = "bearer") {
    const url = `${server.url}/test-mount/whoami${way === "query" ? `?token=${encodeURIComponent(token)}` : ""}`;
    const response = await fetch(url, {
      method: way === "form" ? "POST" : "GET",
      headers: {
        ...(way === "bearer" ? { authorization: `Bearer ${token}` } : {}),
        ...(way === "form" ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      ...(way === "form" ? { body: new URLSearchParams({ access_token: token }) } : {}),
    });
    assert.equal(response.status, 401);
    assert.match(response.headers.get("www-authenticate") ?? "", /^Bearer /);
    const body = await response.json();
    assert.equal(body.error, "unauthorized");
    return body.error_description as string;
  }

  it("accepts a well-formed token signed with SECRET (so the refusals below are about the token)", async () => {
    const response = await fetch(`${server.url}/test-mount/whoami`, {
      headers: { authorization: `Bearer ${await sign({})}` },
    });
    assert.equal(response.status, 200);
  });

  it("refuses a string that is no token, however it is sent", async () => {
    for (const way of ["bearer", "form", "query"] as const) {
      assert.equal(await refusal("not-a-token", way), "The access token is not valid", way);
    }
  });

  it("refuses an expired token, saying it has expired", async () => {
    const expired = await sign({}, { expires: Math.floor(Date.now() / 1000) - 60 });
    for (const way of ["bearer", "form", "query"] as const) {
      assert.equal(await refusal(expired, way), "The access token has expired", way);
    }
  });

  it("refuses a token for another site", async () => {
    assert.equal(
      await refusal(await sign({ me: "https://other.example/" })),
      "The access token is for another site",
    );
  });

  it("refuses a token signed with another secret, and an unsigned one", async () => {
    const otherSecret = await sign(
      {},
      { secret: new TextEncoder().encode("another secret, 32 characters..") },
    );
    assert.equal(await refusal(otherSecret), "The access token is not valid");
    const unsigned = new UnsecuredJWT({ me: server.host.publication.me, scope: "create", client_id: "x" })
      .setAudience("access")
      .setExpirationTime("1h")
      .encode();
    assert.equal(await refusal(unsigned), "The access token is not valid");
  });

  it("refuses a token without the claims an access token carries", async () => {
    for (const claim of ["client_id", "jti"])
      assert.match(
        await refusal(await sign({ [claim]: undefined })),
        /lacks me, scope, client_id, jti, iat or exp; get a new one from the status page/,
        claim,
      );
  });

  it("refuses a token that never expires: it could never be taken back by time", async () => {
    const forever = await new SignJWT({
      me: server.host.publication.me,
      scope: "create update",
      client_id: "test",
      jti: "forever",
    })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuedAt()
      .setAudience("access")
      .sign(key);
    assert.equal(await refusal(forever), "The access token never expires; tokens without exp are refused");
  });

  it("refuses a malformed Authorization: Bearer header, and no credentials at all, saying what to send", async () => {
    const malformed = await fetch(`${server.url}/test-mount/whoami`, {
      headers: { authorization: "Bearer a b" },
    });
    assert.equal(malformed.status, 401);
    assert.match((await malformed.json()).error_description, /Bearer <access token>/);
    const none = await fetch(`${server.url}/test-mount/whoami`);
    assert.equal(none.status, 401);
    assert.match((await none.json()).error_description, /access token/);
  });
});
