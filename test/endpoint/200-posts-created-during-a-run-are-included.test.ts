// Decision 0007: a batch goes on until no awaiting post is left that it has not tried, so a
// post created through Micropub while the run is sending is in its results too.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import {
  type BatchBody,
  closeServerThenTargets,
  type EndpointServer,
  startWithTargets,
  type Target,
  texts,
  until,
} from "./endpoint-server.ts";

for (const engine of engines) {
  describe(`posts created during a batch are included in it (${engine.name})`, () => {
    let targets: Target[] = [];
    let app: EndpointServer | undefined;
    before(async () => {
      ({ targets, app } = await startWithTargets(2, { engine }));
    });
    after(() => closeServerThenTargets(app, ...targets));

    it("syndicates the late post in the same run, after the others, once per target", async () => {
      assert.ok(app);
      const uids = targets.map((target) => target.uid);
      const early = await app.createPost({
        content: "early",
        targets: uids,
        published: "2024-01-01T00:00:00Z",
      });
      const middle = await app.createPost({
        content: "middle",
        targets: uids,
        published: "2024-01-02T00:00:00Z",
      });
      const [holding] = targets;
      assert.ok(holding);
      holding.sandbox.setBehaviour({ hangMs: 1_500, times: 1 });

      const run = app.syndicate();
      await until("the run is sending the first post", () => holding.sandbox.requests.length > 0);
      const late = await app.createPost({ content: "late", targets: uids });

      const answer = await run;
      assert.equal(answer.status, 200);
      const body = (await answer.json()) as BatchBody;
      assert.deepEqual(
        body.results.map((result) => [result.url, result.status]),
        [
          [early, "syndicated"],
          [middle, "syndicated"],
          [late, "syndicated"],
        ],
      );
      assert.deepEqual(body.summary, { posts: 3, syndicated: 3, partial: 0, failed: 0, skipped: 0 });
      for (const target of targets) assert.deepEqual(texts(target), ["early", "middle", "late"]);
      assert.equal((await app.source(late))["mp-syndicate-to"], undefined);
    });
  });
}
