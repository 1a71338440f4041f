// CSRF (decision 0003): a state-changing request authenticated by the session cookie must carry the
// session's CSRF token (X-CSRF-Token header or _csrf field) and no foreign Origin; requests
// authenticated by a bearer, form or query token need neither.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import TestPlugin from "../fixtures/test-plugin/index.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

describe("CSRF protection of cookie-authenticated changes", () => {
  let server: TestServer;
  let session: { cookie: string; csrf: string };
  before(async () => {
    server = await startTestServer({ database: false, config: { plugins: [] }, plugins: [new TestPlugin()] });
    session = await server.signIn();
  });
  after(() => server.close());

  const post = (
    headers: Record<string, string>,
    form: Record<string, string> = { content: "x" },
    query = "",
  ) =>
    fetch(`${server.url}/test-mount/whoami${query}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(form),
    });

  it("refuses a session POST without a CSRF token with 403, saying to reload", async () => {
    const response = await post({ cookie: session.cookie });
    assert.equal(response.status, 403);
    const body = await response.json();
    assert.equal(body.error, "forbidden");
    assert.match(body.error_description, /Reload the page/);
  });

  it("refuses a session POST with a wrong CSRF token", async () => {
    assert.equal(
      (await post({ cookie: session.cookie, "x-csrf-token": "wrong-token-wrong-token" })).status,
      403,
    );
    assert.equal((await post({ cookie: session.cookie }, { _csrf: "wrong-token-wrong-token" })).status, 403);
  });

  it("refuses a near-miss CSRF token: same length, same start, only the last character off", async () => {
    const last = session.csrf.slice(-1);
    const nearMiss = `${session.csrf.slice(0, -1)}${last === "A" ? "B" : "A"}`;
    assert.equal(nearMiss.length, session.csrf.length);
    assert.equal((await post({ cookie: session.cookie, "x-csrf-token": nearMiss })).status, 403);
    assert.equal((await post({ cookie: session.cookie }, { _csrf: nearMiss, content: "x" })).status, 403);
    const firstOff = `${session.csrf.startsWith("A") ? "B" : "A"}${session.csrf.slice(1)}`;
    assert.equal((await post({ cookie: session.cookie, "x-csrf-token": firstOff })).status, 403);
  });

  it("accepts the CSRF token in the X-CSRF-Token header", async () => {
    const response = await post({ cookie: session.cookie, "x-csrf-token": session.csrf });
    assert.equal(response.status, 200);
    assert.equal((await response.json()).auth.method, "session");
  });

  it("accepts the CSRF token in the _csrf form field, and as a JSON property", async () => {
    const form = await post({ cookie: session.cookie }, { _csrf: session.csrf, content: "x" });
    assert.equal(form.status, 200);
    const json = await fetch(`${server.url}/test-mount/whoami`, {
      method: "POST",
      headers: { cookie: session.cookie, "content-type": "application/json" },
      body: JSON.stringify({ _csrf: session.csrf }),
    });
    assert.equal(json.status, 200);
  });

  it("accepts the server's own Origin with the token, and refuses a foreign one even with the token", async () => {
    const own = await post({ cookie: session.cookie, "x-csrf-token": session.csrf, origin: server.url });
    assert.equal(own.status, 200);
    for (const origin of ["https://evil.example", "null"]) {
      const foreign = await post({ cookie: session.cookie, "x-csrf-token": session.csrf, origin });
      assert.equal(foreign.status, 403, origin);
    }
  });

  it("checks nothing of the kind on GET", async () => {
    const response = await fetch(`${server.url}/test-mount/whoami`, {
      headers: { cookie: session.cookie, origin: "https://evil.example" },
    });
    assert.equal(response.status, 200);
  });

  it("needs no CSRF token for a POST authenticated by a bearer, form or query token, even from another Origin", async () => {
    const token = await server.token();
    const origin = "https://client.example";
    const bearer = await post({ authorization: `Bearer ${token}`, origin });
    assert.equal(bearer.status, 200);
    assert.equal((await bearer.json()).auth.method, "bearer");
    const form = await post({ origin }, { access_token: token });
    assert.equal((await form.json()).auth.method, "form");
    const query = await post({ origin }, { content: "x" }, `?token=${token}`);
    assert.equal((await query.json()).auth.method, "query");
  });

  it("lets a token authenticate a POST that also carries the session cookie but no CSRF token", async () => {
    const token = await server.token();
    const response = await post({ cookie: session.cookie, authorization: `Bearer ${token}` });
    assert.equal(response.status, 200);
    assert.equal((await response.json()).auth.method, "bearer");
  });
});
