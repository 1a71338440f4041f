// Decision 0002, Credentials (spec §5): any of the host's ways is accepted: a signed-in session (with
// its CSRF token), Authorization: Bearer, the form field access_token, the query parameter token.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PostResult } from "../../src/syndication/types.ts";
import { engines } from "../helpers/databases.ts";
import {
  closeServerThenTargets,
  type EndpointServer,
  startWithOneTarget,
  type Target,
} from "./endpoint-server.ts";

for (const engine of engines) {
  describe(`POST /syndicate accepts every way of authenticating (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    before(async () => {
      ({ target, app } = await startWithOneTarget(engine));
    });
    after(() => closeServerThenTargets(app, target));

    const ways: Array<[string, (post: string, token: string) => Promise<[string, RequestInit]>]> = [
      [
        "a signed-in session with its CSRF token in X-CSRF-Token",
        async (post) => {
          assert.ok(app);
          const { cookie, csrf } = await app.server.signIn();
          return [
            `?source_url=${encodeURIComponent(post)}`,
            { headers: { cookie, "x-csrf-token": csrf, accept: "application/json" } },
          ];
        },
      ],
      [
        "a signed-in session with its CSRF token in the form field _csrf",
        async (post) => {
          assert.ok(app);
          const { cookie, csrf } = await app.server.signIn();
          return [
            "",
            {
              headers: {
                cookie,
                "content-type": "application/x-www-form-urlencoded",
                accept: "application/json",
              },
              body: new URLSearchParams({ _csrf: csrf, source_url: post }),
            },
          ];
        },
      ],
      [
        "Authorization: Bearer",
        async (post, token) => [
          `?source_url=${encodeURIComponent(post)}`,
          { headers: { authorization: `Bearer ${token}` } },
        ],
      ],
      [
        "the form field access_token",
        async (post, token) => [
          "",
          {
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ access_token: token, source_url: post }),
          },
        ],
      ],
      [
        "the query parameter token",
        async (post, token) => [
          `?source_url=${encodeURIComponent(post)}&token=${encodeURIComponent(token)}`,
          {},
        ],
      ],
    ];

    for (const [way, request] of ways) {
      it(`syndicates with ${way}`, async () => {
        assert.ok(app && target);
        const post = await app.createPost({ content: way, targets: [target.uid] });
        const update = await app.server.token("update");
        const answer = await app.syndicate(...(await request(post, update)), false);
        assert.equal(answer.status, 200);
        const result = (await answer.json()) as PostResult;
        assert.equal(result.url, post);
        assert.equal(result.status, "syndicated");
        assert.equal(target.sandbox.statuses.at(-1)?.text, way);
      });
    }

    it("records each of these runs as a manual single-post run", async () => {
      assert.ok(app);
      const runs = await app.syndication().reads.recentRuns();
      assert.equal(runs.length, ways.length);
      for (const run of runs) {
        assert.equal(run.kind, "single");
        assert.equal(run.trigger, "manual");
        assert.equal(run.status, "finished");
      }
    });
  });
}
