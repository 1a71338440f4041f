// startTestServer chooses its port free, then binds it only after prepare() ran the migrations
// (seconds on a busy machine); another test process may take the port in between. The helper
// starts on another port rather than failing the test, and the server there is the test's own.
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer } from "node:http";
import { describe, it } from "node:test";
import { startTestServer } from "./server.ts";

describe("a test server whose port another server took first", () => {
  it("starts again on a port of its own, and answers there itself", async () => {
    let decoyAsked = 0;
    const decoy = createServer((_request, response) => {
      decoyAsked += 1;
      response.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
    }).listen(0, "127.0.0.1");
    await once(decoy, "listening");
    const taken = (decoy.address() as { port: number }).port;
    const server = await startTestServer({ firstPort: taken });
    try {
      assert.notEqual(server.url, `http://127.0.0.1:${taken}`, "not the port another server holds");
      const response = await fetch(`${server.url}/micropub?q=config`, {
        headers: { authorization: `Bearer ${await server.token("create")}` },
      });
      assert.equal(response.status, 200, "the server itself answers, accepting its own token");
      assert.equal(decoyAsked, 0, "nothing was asked of the other server");
    } finally {
      await server.close();
      decoy.close();
    }
  });

  it("does not move a port the test named itself", async () => {
    const decoy = createServer().listen(0, "127.0.0.1");
    await once(decoy, "listening");
    const taken = (decoy.address() as { port: number }).port;
    try {
      await assert.rejects(
        startTestServer({ config: { application: { port: taken } } }),
        new RegExp(`application\\.port: ${taken} is in use`),
      );
    } finally {
      decoy.close();
    }
  });
});
