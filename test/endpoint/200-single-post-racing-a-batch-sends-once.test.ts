// Decision 0008: single-post requests may run beside a batch, but no (post, target) is ever
// sent twice: each is claimed in the database before its syndicator is called.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PostResult } from "../../src/syndication/types.ts";
import { engines } from "../helpers/databases.ts";
import {
  type BatchBody,
  closeServerThenTargets,
  type EndpointServer,
  startWithTargets,
  type Target,
  until,
} from "./endpoint-server.ts";

for (const engine of engines) {
  describe(`single-post requests racing a batch send each (post, target) once (${engine.name})`, () => {
    let targets: Target[] = [];
    let app: EndpointServer | undefined;
    before(async () => {
      ({ targets, app } = await startWithTargets(2, { engine }, { latencyMs: 60 }));
    });
    after(() => closeServerThenTargets(app, ...targets));

    it("sends every post once to every target, whoever gets there first", async () => {
      assert.ok(app);
      const uids = targets.map((target) => target.uid);
      const posts: string[] = [];
      for (let i = 1; i <= 4; i++) posts.push(await app.createPost({ content: `post ${i}`, targets: uids }));

      const batch = app.syndicate();
      await until("the batch has started sending", () => targets.some((t) => t.sandbox.requests.length > 0));
      // Every post asked for by itself, twice, while the batch works through them.
      const singles = await Promise.all(
        [...posts, ...posts].map((url) => app?.syndicate(`?source_url=${encodeURIComponent(url)}`)),
      );
      const batchAnswer = await batch;

      assert.equal(batchAnswer.status, 200);
      const batchBody = (await batchAnswer.json()) as BatchBody;
      const singleResults: PostResult[] = [];
      for (const single of singles) {
        assert.equal(single?.status, 200);
        singleResults.push((await single?.json()) as PostResult);
      }
      for (const target of targets) {
        assert.deepEqual(
          target.sandbox.statuses.map((status) => status.text).sort(),
          ["post 1", "post 2", "post 3", "post 4"],
          `${target.uid} received each post exactly once`,
        );
      }
      // Exactly one answer reports each (post, target) as sent now.
      const sentNow = [...batchBody.results, ...singleResults].flatMap((result) =>
        result.targets.filter((t) => t.status === "syndicated").map((t) => `${result.url} ${t.uid}`),
      );
      assert.equal(sentNow.length, posts.length * uids.length);
      assert.equal(new Set(sentNow).size, sentNow.length);

      for (const url of posts) {
        const properties = await app.source(url);
        assert.equal(properties["mp-syndicate-to"], undefined);
        assert.equal(properties.syndication?.length, uids.length);
      }
    });
  });
}
