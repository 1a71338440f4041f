// Decision 0009: `source_url` names the one post to syndicate now, in the query, a form body, a
// JSON body, or as the peer accepts it, `syndication.source_url`. Only that post is sent; asking
// again sends nothing, because targets already syndicated are never called again.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PostResult } from "../../src/syndication/types.ts";
import { engines } from "../helpers/databases.ts";
import {
  closeServerThenTargets,
  type EndpointServer,
  startWithTargets,
  type Target,
  texts,
} from "./endpoint-server.ts";

for (const engine of engines) {
  describe(`POST /syndicate with source_url syndicates that one post (${engine.name})`, () => {
    let targets: Target[] = [];
    let app: EndpointServer | undefined;
    let bystander = "";
    before(async () => {
      ({ targets, app } = await startWithTargets(2, { engine }));
      // Older than every other post: a batch would take it first, a single request never does.
      bystander = await app.createPost({
        content: "bystander",
        targets: targets.map((target) => target.uid),
        published: "2020-01-01T00:00:00Z",
      });
    });
    after(() => closeServerThenTargets(app, ...targets));

    const ways: Array<[string, (url: string) => [string, RequestInit]]> = [
      ["the query", (url) => [`?source_url=${encodeURIComponent(url)}`, {}]],
      [
        "a form body",
        (url) => [
          "",
          {
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ source_url: url }),
          },
        ],
      ],
      [
        "a JSON body",
        (url) => [
          "",
          { headers: { "content-type": "application/json" }, body: JSON.stringify({ source_url: url }) },
        ],
      ],
      [
        "a JSON body's syndication.source_url",
        (url) => [
          "",
          {
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ syndication: { source_url: url } }),
          },
        ],
      ],
      [
        "a JSON body's syndication.url",
        (url) => [
          "",
          { headers: { "content-type": "application/json" }, body: JSON.stringify({ syndication: { url } }) },
        ],
      ],
    ];

    for (const [way, request] of ways) {
      it(`takes source_url from ${way}`, async () => {
        assert.ok(app);
        const uids = targets.map((target) => target.uid);
        const url = await app.createPost({ content: `sent by ${way}`, targets: uids });
        const before = targets.map((target) => target.sandbox.statuses.length);

        const response = await app.syndicate(...request(url));
        assert.equal(response.status, 200);
        const result = (await response.json()) as PostResult;

        assert.equal(result.url, url);
        assert.equal(result.status, "syndicated");
        targets.forEach((target, index) => {
          assert.equal(target.sandbox.statuses.length, (before[index] ?? 0) + 1, "one status per target");
          assert.equal(texts(target).at(-1), `sent by ${way}`);
        });
        const copies = targets.map((target) => target.sandbox.statuses.at(-1)?.url);
        assert.deepEqual(
          result.targets.map(({ uid, status, url }) => ({ uid, status, url })),
          uids.map((uid, index) => ({ uid, status: "syndicated", url: copies[index] })),
        );
        assert.deepEqual(result.syndication, copies);
        const properties = await app.source(url);
        assert.deepEqual(properties.syndication, copies);
        assert.equal(properties["mp-syndicate-to"], undefined);
      });
    }

    it("leaves every other post awaiting", async () => {
      assert.ok(app);
      for (const target of targets) assert.ok(!texts(target).includes("bystander"));
      assert.deepEqual(
        (await app.source(bystander))["mp-syndicate-to"],
        targets.map((target) => target.uid),
      );
    });

    it("answers already_syndicated for a post sent before, calling no target again", async () => {
      assert.ok(app);
      const uids = targets.map((target) => target.uid);
      const url = await app.createPost({ content: "asked for twice", targets: uids });
      const first = (await (
        await app.syndicate(`?source_url=${encodeURIComponent(url)}`)
      ).json()) as PostResult;
      const sent = targets.map((target) => target.sandbox.statuses.length);

      const again = await app.syndicate(`?source_url=${encodeURIComponent(url)}`);
      assert.equal(again.status, 200);
      const result = (await again.json()) as PostResult;
      assert.equal(result.status, "unchanged");
      // Targets the post no longer names are reported from the ledger, in the order they were sent.
      const byUid = (a: { uid: string }, b: { uid: string }) => a.uid.localeCompare(b.uid);
      assert.deepEqual(
        result.targets.map(({ uid, status, url }) => ({ uid, status, url })).sort(byUid),
        first.targets.map(({ uid, url }) => ({ uid, status: "already_syndicated", url })).sort(byUid),
      );
      assert.deepEqual(result.syndication, first.syndication);
      assert.deepEqual(
        targets.map((target) => target.sandbox.statuses.length),
        sent,
      );
      assert.deepEqual((await app.source(url)).syndication, first.syndication, "no URL written twice");
    });
  });
}
