// Decision 0010: each target runs under its own timeout (the plug-in option targetTimeoutMs);
// one that hangs is failed when it runs out while the other target of the post succeeds.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import {
  type BatchBody,
  closeServerThenTargets,
  type EndpointServer,
  startWithTargets,
  type Target,
} from "./endpoint-server.ts";

// Long enough for the working target to answer over HTTP on a busy machine.
const TIMEOUT_MS = 1_500;

for (const engine of engines) {
  describe(`a hanging target times out without holding up the others (${engine.name})`, () => {
    let targets: Target[] = [];
    let app: EndpointServer | undefined;
    before(async () => {
      ({ targets, app } = await startWithTargets(2, {
        engine,
        pluginOptions: { targetTimeoutMs: TIMEOUT_MS },
      }));
    });
    after(() => closeServerThenTargets(app, ...targets));

    it("fails the hanging target after targetTimeoutMs and syndicates to the other", async () => {
      const [working, hanging] = targets;
      assert.ok(app && working && hanging);
      const post = await app.createPost({ content: "on time", targets: [hanging.uid, working.uid] });
      hanging.sandbox.hang();

      const started = Date.now();
      const answer = await app.syndicate();
      const took = Date.now() - started;
      assert.equal(answer.status, 200);
      const body = (await answer.json()) as BatchBody;
      assert.ok(took >= TIMEOUT_MS, `answered after ${took} ms, not before the timeout`);
      // Far below the default of 30 s: the option is honoured.
      assert.ok(took < 10_000, `answered after ${took} ms`);

      assert.deepEqual(body.summary, { posts: 1, syndicated: 0, partial: 1, failed: 0, skipped: 0 });
      const [result] = body.results;
      assert.equal(result?.status, "partial");
      const [timedOut, sent] = result?.targets ?? [];
      assert.equal(timedOut?.uid, hanging.uid);
      assert.equal(timedOut?.status, "failed");
      assert.match(timedOut?.error ?? "", /did not answer within 1\.5 s/);
      assert.equal(sent?.uid, working.uid);
      assert.equal(sent?.status, "syndicated");
      assert.equal(sent?.url, working.sandbox.statuses[0]?.url);
      assert.equal(hanging.sandbox.statuses.length, 0);
      assert.deepEqual((await app.source(post))["mp-syndicate-to"], [hanging.uid]);
    });
  });
}
