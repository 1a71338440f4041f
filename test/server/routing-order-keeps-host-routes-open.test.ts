// The order of the server (decision 0001): static assets; public and well-known routes; sign-in;
// authentication; authenticated routes. Even a plug-in mounted at "/" cannot put the host's own
// open routes behind its authentication.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import TestPlugin from "../fixtures/test-plugin/index.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { browser } from "./pages.ts";

describe("a plug-in mounted at /", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      database: false,
      config: { plugins: [] },
      plugins: [new TestPlugin({ id: "root-plugin", mountPath: "/" })],
    });
  });
  after(() => server.close());

  it("leaves static assets, /health, the sign-in page and the home page open", async () => {
    for (const path of [
      "/assets/style.css",
      "/assets/vendor/htmx.min.js",
      "/health",
      "/session/login",
      "/",
    ]) {
      const response = await fetch(`${server.url}${path}`, { headers: browser(), redirect: "manual" });
      assert.equal(response.status, 200, path);
    }
  });

  it("lets sign-in work through it", async () => {
    const { cookie } = await server.signIn();
    const response = await fetch(`${server.url}/whoami`, { headers: { cookie } });
    assert.equal(response.status, 200);
  });

  it("answers its public and well-known routes without credentials, and its routes only with them", async () => {
    assert.equal((await fetch(`${server.url}/hello`)).status, 200);
    assert.equal((await fetch(`${server.url}/.well-known/test-plugin.json`)).status, 200);
    assert.equal((await fetch(`${server.url}/whoami`)).status, 401);
    const token = await server.token();
    assert.equal(
      (await fetch(`${server.url}/whoami`, { headers: { authorization: `Bearer ${token}` } })).status,
      200,
    );
  });
});
