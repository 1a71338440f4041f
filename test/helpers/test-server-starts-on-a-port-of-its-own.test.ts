// startTestServer chooses its port free, then binds it only after prepare() ran the migrations
// (seconds on a busy machine); another test process may take the port in between. The helper
// starts on another port rather than failing the test, and the server there is the test's own.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startDecoyServer } from "./decoy-server.ts";
import { startTestServer } from "./server.ts";

describe("a test server whose port another server took first", () => {
  it("starts again on a port of its own, and answers there itself", async (t) => {
    const decoy = await startDecoyServer(t);
    const taken = decoy.port;
    const server = await startTestServer({ firstPort: taken });
    try {
      assert.notEqual(server.url, `http://127.0.0.1:${taken}`, "not the port another server holds");
      const response = await fetch(`${server.url}/micropub?q=config`, {
        headers: { authorization: `Bearer ${await server.token("create")}` },
      });
      assert.equal(response.status, 200, "the server itself answers, accepting its own token");
      assert.equal(decoy.asked(), 0, "nothing was asked of the other server");
    } finally {
      await server.close();
    }
  });

  it("does not move a port the test named itself", async (t) => {
    const decoy = await startDecoyServer(t);
    const taken = decoy.port;
    await assert.rejects(
      startTestServer({ config: { application: { port: taken } } }),
      new RegExp(`application\\.port: ${taken} is in use`),
    );
  });
});
