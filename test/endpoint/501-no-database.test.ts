// Decision 0009: without a database the plug-in still mounts, and its endpoint answers 501
// with a message that says why, to requests, to signed webhooks and to the public copies routes alike.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EndpointSyndicate } from "../../src/plugin/endpoint-syndicate.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { netlifyDeployBody, netlifySignature, SECRET } from "../helpers/webhook-signers.ts";
import { assertError, PLUGIN_PACKAGE } from "./endpoint-server.ts";

describe("without a database the endpoint answers 501", () => {
  let server: TestServer | undefined;
  before(async () => {
    server = await startTestServer({
      database: false,
      config: { plugins: [PLUGIN_PACKAGE] },
      env: { WEBHOOK_SECRET: SECRET },
    });
  });
  after(() => server?.close());

  it("mounts the plug-in anyway", () => {
    assert.ok(server);
    const plugin = server.host.endpoints.find((endpoint) => endpoint instanceof EndpointSyndicate);
    assert.equal(plugin?.mountPath, "/syndicate");
    assert.equal(server.host.database, null);
  });

  for (const [what, query] of [
    ["a batch", ""],
    ["one post", `?source_url=${encodeURIComponent("https://example.org/notes/1/")}`],
  ] as const) {
    it(`answers 501 to ${what}, saying a database is needed`, async () => {
      assert.ok(server);
      const token = await server.token("update");
      const answer = await fetch(`${server.url}/syndicate${query}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      });
      assert.match(await assertError(answer, 501, "not_implemented"), /database/);
    });
  }

  it("still refuses a request without credentials with 401", async () => {
    assert.ok(server);
    const answer = await fetch(`${server.url}/syndicate`, { method: "POST" });
    await assertError(answer, 401, "unauthorized");
  });

  it("answers 501 to the public copies routes, as JSON", async () => {
    assert.ok(server);
    for (const path of ["/copies.json", `/copies?url=${encodeURIComponent("https://example.org/a/")}`]) {
      const answer = await fetch(`${server.url}/syndicate${path}`, { headers: { accept: "text/html" } });
      assert.match(await assertError(answer, 501, "not_implemented"), /database/);
    }
  });

  it("answers 501 to a signed deploy webhook", async () => {
    assert.ok(server);
    const body = netlifyDeployBody();
    const answer = await fetch(`${server.url}/syndicate`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-webhook-signature": netlifySignature(body) },
      body,
    });
    assert.match(await assertError(answer, 501, "not_implemented"), /database/);
  });
});
