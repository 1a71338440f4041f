// The port a child server is given is chosen free before the child starts and bound seconds later;
// another test process may take it in between, and its /health answers 200 too. The helper must
// neither take that answer for the child's nor give up: it starts the child on another port.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startChildServer } from "./child-server.ts";
import { startDecoyServer } from "./decoy-server.ts";

describe("a child server whose port another server took first", () => {
  it("starts again on a port of its own, and answers there itself", async (t) => {
    const decoy = await startDecoyServer(t);
    const taken = decoy.port;
    const child = await startChildServer({ firstPort: taken });
    try {
      assert.notEqual(child.url, `http://127.0.0.1:${taken}`, "not the port another server holds");
      assert.match(child.output(), new RegExp(`application\\.port: ${taken} is in use`));
      const token = await child.token("create");
      const response = await fetch(`${child.url}/micropub?q=config`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(response.status, 200, "the child itself answers, accepting its own token");
      assert.ok(decoy.asked() > 0, "the decoy's answers were asked for and not taken");
    } finally {
      await child.stop();
    }
  });
});
