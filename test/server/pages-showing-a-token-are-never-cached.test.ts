// The status page's answer to "New token" shows a fresh access token, and every signed-in page carries the
// session's CSRF token (the sign-out form). A shared or browser cache that kept them would hand them
// to the next person at that machine or behind that proxy: such pages say Cache-Control: no-store.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { makeTokenOnStatus } from "../helpers/status-token.ts";
import { browser } from "./pages.ts";

describe("pages showing a token are never cached", () => {
  let server: TestServer;
  let cookie = "";
  let session: { cookie: string; csrf: string };
  before(async () => {
    server = await startTestServer({ database: false, config: { plugins: [] } });
    session = await server.signIn();
    cookie = session.cookie;
  });
  after(() => server.close());

  it("the status page, and its answer with a new access token, say no-store", async () => {
    const response = await fetch(`${server.url}/status`, { headers: browser({ cookie }) });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("cache-control"), "no-store");
    const made = await makeTokenOnStatus(server.url, session);
    assert.match(made.html, /id="access-token"/);
    assert.equal(made.response.headers.get("cache-control"), "no-store");
  });

  it("the signed-in home page, with the CSRF token in its sign-out form, says no-store", async () => {
    const response = await fetch(`${server.url}/`, { headers: browser({ cookie }) });
    assert.equal(response.status, 200);
    assert.match(await response.text(), /name="_csrf"/);
    assert.equal(response.headers.get("cache-control"), "no-store");
  });
});
