// Decision 0028: a post deleted through Micropub has its Mastodon copy deleted by the scheduler alone
// (no click, no webhook): the target answers 503 first, a retry after its backoff (2 minutes, on
// the test's clock) deletes it, exactly once. The copy's
// link leaves the post. Restored (undelete), the post is sent again as a new copy, with a new
// idempotency key (Mastodon remembers a key for an hour), and gets the new link.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import { until } from "../helpers/eventually.ts";
import { looks, schedulerOf } from "../schedule/scheduled-server.ts";
import { type FollowWorld, startFollowWorld } from "./follow-world.ts";

const STATUS = /^\/api\/v1\/statuses\/\d+$/;
const MINUTE = 60_000;

for (const engine of engines) {
  describe(`a Micropub delete deletes the copy, once, by itself (${engine.name})`, () => {
    let world: FollowWorld | undefined;
    before(async () => {
      world = await startFollowWorld(engine);
    });
    after(async () => {
      await world?.close();
    });

    it("deletes the copy after a 503, once; undelete sends a new copy with a new key", async () => {
      assert.ok(world);
      const { target } = world;
      const url = await world.publishAndWait("Soon gone");
      const first = target.sandbox.statuses[0];
      assert.ok(first);

      target.sandbox.setBehaviour({
        route: "DELETE /api/v1/statuses/:id",
        status: 503,
        error: "Down for maintenance",
        times: 1,
      });
      assert.equal(await world.micropub({ action: "delete", url }), 204);
      await until("the target refused the delete", () => world?.requests("DELETE", STATUS).length === 1);
      await world.clock.advance(2 * MINUTE - 1);
      await looks(schedulerOf(world.app));
      assert.equal(world.requests("DELETE", STATUS).length, 1, "not retried before its backoff ends");
      await world.clock.advance(1);
      await until("the copy is deleted", async () => first.deletedAt !== null);
      await looks(schedulerOf(world.app));
      assert.equal(
        world.requests("DELETE", STATUS).length,
        2,
        "one refused (503), then one that went through",
      );
      assert.deepEqual((await world.properties(url)).syndication ?? [], [], "the link left the post");

      const post = await world.app.server.host.posts?.findByUrl(url);
      assert.ok(post);
      const attempts = await world.app.syndication().reads.attemptsForPost(post.id);
      assert.deepEqual(
        attempts.map((a) => [a.operation, a.outcome, a.trigger]),
        [
          ["delete", "syndicated", "schedule"],
          ["delete", "failed", "schedule"],
          ["create", "syndicated", "schedule"],
        ],
      );
      assert.ok(
        (await world.app.syndication().reads.recentRuns()).every((run) => run.trigger === "schedule"),
        "no run was started by a request",
      );

      assert.equal(await world.micropub({ action: "undelete", url }), 204);
      await until("a new copy is posted", async () => target.sandbox.statuses.length === 2);
      const second = target.sandbox.statuses[1];
      assert.ok(second);
      assert.notEqual(second.id, first.id);
      assert.ok(second.idempotencyKey);
      assert.notEqual(second.idempotencyKey, first.idempotencyKey, "a new idempotency key");
      await until("the post has the new link", async () => {
        const syndication = (await world?.properties(url))?.syndication;
        return JSON.stringify(syndication) === JSON.stringify([second.url]);
      });
      await looks(schedulerOf(world.app));
      assert.equal(target.sandbox.statuses.length, 2, "sent once");
      assert.equal(world.requests("DELETE", STATUS).length, 2, "nothing deleted again");
    });
  });
}
