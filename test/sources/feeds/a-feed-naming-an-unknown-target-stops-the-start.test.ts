// A feed naming a target no installed syndicator has would record posts that wait forever: the
// server refuses to start, with one line naming the option and the targets there are.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EndpointSyndicate } from "../../../src/plugin/endpoint-syndicate.ts";
import { closeAll, startTarget } from "../../endpoint/endpoint-server.ts";
import { startTestServer } from "../../helpers/server.ts";

describe("a feed naming an unknown target", () => {
  it("stops the start with one line naming the option", async () => {
    const target = await startTarget();
    try {
      const plugin = new EndpointSyndicate(
        {
          targets: { checkAtStart: false },
          feeds: [
            { url: "https://blog.example/feed.xml", targets: [target.uid, "https://nowhere.example/@me"] },
          ],
        },
        { env: {} },
      );
      // A server that starts after all is closed at once, so that the test fails quickly instead of
      // hanging on its open database.
      const started = startTestServer({
        config: { plugins: [] },
        plugins: [target.syndicator(), plugin],
      }).then(async (server) => {
        await server.close();
        return server;
      });
      await assert.rejects(started, (error: Error & { problems?: string[] }) => {
        assert.deepEqual(error.problems, [
          `endpoint-syndicate: option "feeds.0.targets.1" names "https://nowhere.example/@me", which is no installed target; write one of "${target.uid}", or connect that account on the Accounts page`,
        ]);
        return true;
      });
    } finally {
      await closeAll(target);
    }
  });
});
