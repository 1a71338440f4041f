// Issue 4, Errors: the endpoint's routes are authenticated plug-in routes, so the host's rate limit
// (application.rateLimit.authenticated) applies: over it, 429 with Retry-After, and nothing runs.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import {
  assertError,
  closeAll,
  type EndpointServer,
  startEndpointServer,
  startTarget,
  type Target,
} from "./endpoint-server.ts";

const LIMIT = 3;

for (const engine of engines) {
  describe(`POST /syndicate is rate limited (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    before(async () => {
      target = await startTarget();
      app = await startEndpointServer({
        engine,
        targets: [target],
        config: { application: { rateLimit: { windowMs: 60_000, authenticated: LIMIT } } },
      });
    });
    after(async () => {
      await app?.close();
      await closeAll(target);
    });

    it(`answers 429 with Retry-After after ${LIMIT} requests in the window`, async () => {
      assert.ok(app && target);
      // Micropub is an authenticated plug-in route too: the post takes one request of the budget,
      await app.createPost({ content: "limited", targets: [target.uid] });
      // and refused requests take theirs (a token without the scope update).
      const createOnly = await app.server.token("create");
      for (let i = 1; i < LIMIT; i++) {
        const refused: Response = await app.syndicate("", {
          headers: { authorization: `Bearer ${createOnly}` },
        });
        assert.equal(refused.status, 403);
      }
      const limited = await app.syndicate();
      assert.match(limited.headers.get("retry-after") ?? "", /^\d+$/);
      assert.match(await assertError(limited, 429, "too_many_requests"), /try again/);
      assert.equal(target.sandbox.requests.length, 0, "the limited request ran nothing");
      assert.equal((await app.syndication().recentRuns()).length, 0);
    });
  });
}
