// A valid token whose scope lacks what a route needs (decision 0002): 403 insufficient_scope, checked by
// the route with hasScope(); a signed-in session has every scope.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import TestPlugin from "../fixtures/test-plugin/index.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

describe("routes that need a scope", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ database: false, config: { plugins: [] }, plugins: [new TestPlugin()] });
  });
  after(() => server.close());

  const needsDelete = (headers: Record<string, string>) =>
    fetch(`${server.url}/test-mount/needs-delete`, { headers });

  it("answers a token without the scope with 403 insufficient_scope, naming the scope", async () => {
    const response = await needsDelete({ authorization: `Bearer ${await server.token("create update")}` });
    assert.equal(response.status, 403);
    const body = await response.json();
    assert.equal(body.error, "insufficient_scope");
    assert.match(body.error_description, /"delete"/);
  });

  it("answers a token with the scope", async () => {
    const response = await needsDelete({ authorization: `Bearer ${await server.token("create delete")}` });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { deleted: true });
  });

  it("answers a signed-in session, which has every scope", async () => {
    const { cookie } = await server.signIn();
    assert.equal((await needsDelete({ cookie })).status, 200);
  });
});
