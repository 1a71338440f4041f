// Decision 0007: posts created through Micropub with targets are syndicated by one
// `POST /syndicate?token=…`, oldest first (published time, then creation order), each target
// receives each post exactly once, and q=source shows the syndication URLs with no target left.
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
} from "./endpoint-server.ts";

for (const engine of engines) {
  describe(`POST /syndicate without source_url works through every awaiting post (${engine.name})`, () => {
    let targets: Target[] = [];
    let app: EndpointServer | undefined;
    before(async () => {
      ({ targets, app } = await startWithTargets(2, { engine }));
    });
    after(() => closeServerThenTargets(app, ...targets));

    it("syndicates oldest first, each post to each target once, and writes the URLs back", async () => {
      assert.ok(app);
      const uids = targets.map((target) => target.uid);
      // Created in an order that is not the order of publication; B1 and B2 share their time.
      const c = await app.createPost({ content: "C", targets: uids, published: "2024-03-01T10:00:00Z" });
      const a = await app.createPost({ content: "A", targets: uids, published: "2024-01-01T10:00:00Z" });
      const b1 = await app.createPost({ content: "B1", targets: uids, published: "2024-02-01T10:00:00Z" });
      const b2 = await app.createPost({ content: "B2", targets: uids, published: "2024-02-01T10:00:00Z" });
      const draft = await app.createPost({
        content: "draft",
        targets: uids,
        published: "2023-01-01T10:00:00Z",
        fields: { "post-status": "draft" },
      });
      const untargeted = await app.createPost({ content: "no targets", targets: [] });

      const response = await app.syndicate(`?token=${encodeURIComponent(app.token)}`, {}, false);
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
      const body = (await response.json()) as BatchBody;

      assert.deepEqual(
        body.results.map((result) => result.url),
        [a, b1, b2, c],
      );
      assert.deepEqual(body.summary, { posts: 4, syndicated: 4, partial: 0, failed: 0, skipped: 0 });
      for (const target of targets) assert.deepEqual(texts(target), ["A", "B1", "B2", "C"]);

      for (const result of body.results) {
        assert.equal(result.status, "syndicated");
        assert.deepEqual(
          result.targets.map(({ uid, status }) => ({ uid, status })),
          uids.map((uid) => ({ uid, status: "syndicated" })),
        );
        const copies = result.targets.map((target) => target.url);
        // Each copy is the status the sandbox made for this post.
        const index = [a, b1, b2, c].indexOf(result.url);
        assert.deepEqual(
          copies,
          targets.map((target) => target.sandbox.statuses[index]?.url),
        );
        assert.deepEqual(result.syndication, copies);
        const properties = await app.source(result.url);
        assert.deepEqual(properties.syndication, copies);
        assert.equal(properties["mp-syndicate-to"], undefined, "no target is left to reach");
      }

      assert.deepEqual((await app.source(draft))["mp-syndicate-to"], uids, "a draft waits");
      assert.equal((await app.source(untargeted)).syndication, undefined);
    });

    it("answers an empty result list once nothing is awaiting, and sends nothing again", async () => {
      assert.ok(app);
      const response = await app.syndicate();
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), {
        results: [],
        summary: { posts: 0, syndicated: 0, partial: 0, failed: 0, skipped: 0 },
      });
      for (const target of targets) assert.equal(target.sandbox.statuses.length, 4);
    });
  });
}
