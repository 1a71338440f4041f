// Decision 0014: a target that answers 503 to the first send gets the post later from the scheduler,
// with no further request to the server (no click, webhook or POST), and exactly once: after its
// backoff (2 minutes for a first failure, at the defaults), not a millisecond before. The server's
// core and scheduler tell time by the test's clock, so the two minutes take no time.
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
import { looks, ServerClock, schedulerOf } from "./scheduled-server.ts";

/** The default backoff of a first failure: 2^1 × one minute. */
const FIRST_BACKOFF_MS = 120_000;

for (const engine of engines) {
  describe(`503 first, syndicated later with no request (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    const clock = new ServerClock();
    before(async () => {
      ({ target, app } = await startWithOneTarget(engine, {
        pluginOptions: { schedule: { enabled: true, whenLive: false } },
        clock,
      }));
    });
    after(() => closeServerThenTargets(app, target));

    it("sends the new post by itself, retries after its backoff, and sends it once", async () => {
      assert.ok(app && target);
      const sandbox = target.sandbox;
      const scheduler = schedulerOf(app);
      sandbox.setBehaviour({ status: 503, error: "Down for maintenance", times: 1 });
      const url = await app.createPost({ content: "sent while the target was down", targets: [target.uid] });
      const posts = () =>
        sandbox.requests.filter((r) => r.method === "POST" && r.path === "/api/v1/statuses");

      await until("the target refused the post", () => posts().length === 1);
      await clock.sleeping("the scheduler sleeps after the refused send");
      assert.equal(
        scheduler.state().nextDueAt?.getTime(),
        clock.now() + FIRST_BACKOFF_MS,
        "the post is next due when its backoff ends",
      );

      // A millisecond early, even a look at what is due sends nothing.
      await clock.advance(FIRST_BACKOFF_MS - 1);
      await looks(scheduler);
      assert.equal(posts().length, 1, "nothing is sent before the backoff ends");

      await clock.advance(1);
      await until("the target has the post", () => sandbox.statuses.length === 1);
      assert.equal(posts().length, 2, "one refused send (503), then one that went through");

      // Several more looks, and a day: nothing is sent again.
      await looks(scheduler);
      await clock.advance(86_400_000);
      await looks(scheduler);
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
