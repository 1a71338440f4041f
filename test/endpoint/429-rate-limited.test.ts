// Decision 0006: the endpoint's routes are authenticated plug-in routes, so the host's rate limit
// (application.rateLimit.authenticated, per credential) applies: over it, 429 with Retry-After, and
// nothing runs.
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

    it(`answers 429 with Retry-After after ${LIMIT} requests of one token in the window`, async () => {
      assert.ok(app && target);
      // Micropub is an authenticated plug-in route too: the post takes one request of the budget,
      await app.createPost({ content: "limited", targets: [target.uid] });
      // and so does every other request made with the same token.
      for (let i = 1; i < LIMIT; i++) {
        const status: Response = await fetch(`${app.endpoint}/status`, {
          headers: { authorization: `Bearer ${app.token}`, accept: "application/json" },
        });
        assert.equal(status.status, 200);
      }
      const limited = await app.syndicate();
      assert.match(limited.headers.get("retry-after") ?? "", /^\d+$/);
      assert.match(await assertError(limited, 429, "too_many_requests"), /try again/);
      assert.equal(target.sandbox.requests.length, 0, "the limited request ran nothing");
      assert.equal((await app.syndication().reads.recentRuns()).length, 0);

      // The budget is the token's: another credential still has its own.
      const createOnly = await app.server.token("create");
      const other = await app.syndicate("", { headers: { authorization: `Bearer ${createOnly}` } });
      await assertError(other, 403, "insufficient_scope");
    });
  });
}
