// Issue 12: a target that answers 503 to the first send gets the post later from the scheduler,
// with no further request to the server (no click, webhook or POST), and exactly once.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  closeServerThenTargets,
  type EndpointServer,
  startWithOneTarget,
  type Target,
  until,
} from "../endpoint/endpoint-server.ts";
import { engines } from "../helpers/databases.ts";
import { looks, SHORT_SCHEDULE, schedulerOf } from "./scheduled-server.ts";

for (const engine of engines) {
  describe(`503 first, syndicated later with no request (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    before(async () => {
      ({ target, app } = await startWithOneTarget(engine, { pluginOptions: SHORT_SCHEDULE }));
    });
    after(() => closeServerThenTargets(app, target));

    it("sends the new post by itself, retries after the 503, and sends it once", async () => {
      assert.ok(app && target);
      const sandbox = target.sandbox;
      sandbox.setBehaviour({ status: 503, error: "Down for maintenance", times: 1 });
      const url = await app.createPost({ content: "sent while the target was down", targets: [target.uid] });

      await until("the target has the post", () => sandbox.statuses.length === 1, 10_000);
      const posts = sandbox.requests.filter((r) => r.method === "POST" && r.path === "/api/v1/statuses");
      assert.equal(posts.length, 2, "one refused send (503), then one that went through");

      // Several more wake-ups: nothing is sent again.
      await looks(schedulerOf(app));
      assert.equal(sandbox.statuses.length, 1);
      const properties = await app.source(url);
      assert.deepEqual(properties.syndication, [sandbox.statuses[0]?.url]);
      assert.equal(properties["mp-syndicate-to"], undefined);

      const post = await app.server.host.posts?.findByUrl(url);
      assert.ok(post);
      const attempts = await app.syndication().reads.attemptsForPost(post.id);
      assert.deepEqual(
        attempts.map((a) => [a.trigger, a.outcome]),
        [
          ["schedule", "syndicated"],
          ["schedule", "failed"],
        ],
      );
      const runs = await app.syndication().reads.recentRuns();
      assert.ok(
        runs.every((run) => run.trigger === "schedule"),
        "no run was started by a request",
      );
    });
  });
}
