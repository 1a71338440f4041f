// Decision 0014: schedule.enabled false restores trigger-only behaviour: a new post, a failed send due
// again, nothing goes out until a request asks; then the request sends it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EndpointSyndicate } from "../../src/plugin/endpoint-syndicate.ts";
import {
  closeAll,
  type EndpointServer,
  startEndpointServer,
  startTarget,
  type Target,
} from "../endpoint/endpoint-server.ts";
import { engines } from "../helpers/databases.ts";

for (const engine of engines) {
  describe(`schedule.enabled false sends nothing by itself (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    before(async () => {
      target = await startTarget();
      app = await startEndpointServer({
        engine,
        targets: [target],
        pluginOptions: { schedule: { enabled: false, whenLive: false } },
      });
    });
    after(async () => {
      await app?.close();
      await closeAll(target);
    });

    it("runs no scheduler and leaves new posts awaiting until a request", async () => {
      assert.ok(app && target);
      const plugin = app.server.host.plugins.find(
        (p): p is EndpointSyndicate => p instanceof EndpointSyndicate,
      );
      assert.equal(plugin?.scheduler, null);
      await app.createPost({ content: "waits for a click", targets: [target.uid] });
      // With no scheduler nothing in the process wakes by itself, so there is no time to wait for:
      // a send made by anything else would leave the click nothing to send, or the lease taken.
      assert.equal(target.sandbox.statuses.length, 0);
      assert.deepEqual(await app.syndication().reads.recentRuns(), []);

      const answer = await app.syndicate();
      assert.equal(answer.status, 200);
      const { summary } = (await answer.json()) as { summary: { syndicated: number } };
      assert.equal(summary.syndicated, 1, "the click sent it");
      assert.equal(target.sandbox.statuses.length, 1);
    });
  });
}
