// Decision 0028: a Micropub update of a syndicated post reaches its Mastodon copy by itself (the
// scheduler, nobody clicking): exactly one PUT with the new text, the photo kept with the new alt
// text. The same update again sends nothing, nor does a change of only the links we write back.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createPostService } from "../../src/server/posts/post-service.ts";
import { engines } from "../helpers/databases.ts";
import { until } from "../helpers/eventually.ts";
import { looks, schedulerOf } from "../schedule/scheduled-server.ts";
import { type FollowWorld, startFollowWorld } from "./follow-world.ts";

const PUT = /^\/api\/v1\/statuses\/\d+$/;

for (const engine of engines) {
  describe(`a Micropub update edits the Mastodon copy once (${engine.name})`, () => {
    let world: FollowWorld | undefined;
    before(async () => {
      world = await startFollowWorld(engine);
    });
    after(async () => {
      await world?.close();
    });

    it("sends one PUT with the new text and the photo kept, then nothing for the same update", async () => {
      assert.ok(world);
      const { target } = world;
      const url = await world.publishAndWait("First words");
      const status = target.sandbox.statuses[0];
      assert.ok(status);
      const mediaId = status.media[0]?.id;
      assert.ok(mediaId, "the copy has its photo");

      const update = {
        action: "update",
        url,
        replace: {
          content: ["Second words, fixed"],
          photo: [{ value: `${world.photos.url}/cat.jpg`, alt: "A cat asleep" }],
        },
      };
      assert.equal(await world.micropub(update), 204);
      await until("the copy is edited", async () => world?.requests("PUT", PUT).length === 1);
      assert.match(status.text, /^Second words, fixed/);
      assert.deepEqual(
        status.media.map((m) => [m.id, m.description]),
        [[mediaId, "A cat asleep"]],
        "the same upload, with the new alt text",
      );
      assert.equal(target.sandbox.media.length, 1, "nothing uploaded again");

      // The same update again, then a change of only our own write-back fields: not even noted as
      // a change, so no run starts for them.
      await until(
        "the run that edited it has ended",
        async () =>
          (await world?.app.syndication().reads.recentRuns())?.every((run) => run.status !== "running") ??
          false,
      );
      const runsBefore = (await world.app.syndication().reads.recentRuns()).length;
      assert.equal(await world.micropub(update), 204);
      assert.equal(
        await world.micropub({
          action: "update",
          url,
          add: { syndication: ["https://elsewhere.example/1"] },
        }),
        204,
      );
      await looks(schedulerOf(world.app));
      assert.equal(world.requests("PUT", PUT).length, 1, "no second PUT");
      assert.equal(target.sandbox.statuses.length, 1, "no new status");
      assert.equal((await world.app.syndication().reads.recentRuns()).length, runsBefore, "no run started");

      // A change the copy does not show is followed (a run looks at it) but sends nothing.
      assert.equal(
        await world.micropub({ action: "update", url, add: { "x-private-note": ["for me"] } }),
        204,
      );
      await until("a run has looked at the change", async () => {
        const runs = (await world?.app.syndication().reads.recentRuns()) ?? [];
        return runs.length > runsBefore && runs.every((run) => run.status !== "running");
      });
      await looks(schedulerOf(world.app));
      assert.equal(world.requests("PUT", PUT).length, 1, "no PUT for a change the copy does not show");

      const post = await world.app.server.host.posts?.findByUrl(url);
      assert.ok(post);
      const attempts = await world.app.syndication().reads.attemptsForPost(post.id);
      assert.deepEqual(
        attempts.map((a) => [a.operation, a.outcome, a.trigger]),
        [
          ["update", "syndicated", "schedule"],
          ["create", "syndicated", "schedule"],
        ],
      );

      // The user's own words for the copy, saved from the page: the copy follows them too.
      await world.app.syndication().copies.saveOwnText(post, target.uid, "My own words for Mastodon");
      await world.clock.advance(60_000); // the scheduler's next wake-up
      await until("the copy is edited again", async () => world?.requests("PUT", PUT).length === 2);
      assert.match(status.text, /^My own words for Mastodon/);

      // A change nobody in this process is told of (another process's, or one whose process died
      // before its listeners ran) is found in the database and followed all the same.
      const database = world.app.server.host.database;
      assert.ok(database);
      await world.app.syndication().copies.resetOwnText(post, target.uid);
      await world.clock.advance(60_000);
      await until("the copy is back to the template", async () => world?.requests("PUT", PUT).length === 3);
      const elsewhere = createPostService(database, world.app.server.host.publication);
      await elsewhere.update(url, { replace: { content: ["Third words, from elsewhere"] } });
      // Nobody nudges the scheduler: its next wake-up, a minute later at the most, finds the change.
      await world.clock.advance(60_000);
      await until("the copy follows", async () => world?.requests("PUT", PUT).length === 4);
      assert.match(status.text, /^Third words, from elsewhere/);
    });
  });
}
