// Decision 0002: a token must carry the scope update; one with only create gets 403
// insufficient_scope, and a signed-in browser's change without its CSRF token is refused too.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import {
  assertError,
  closeServerThenTargets,
  type EndpointServer,
  startWithOneTarget,
  type Target,
} from "./endpoint-server.ts";

for (const engine of engines) {
  describe(`POST /syndicate answers 403 to a credential that may not update posts (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    let post = "";
    before(async () => {
      ({ target, app } = await startWithOneTarget(engine));
      post = await app.createPost({ content: "waiting", targets: [target.uid] });
    });
    after(() => closeServerThenTargets(app, target));

    it("refuses a batch with a token of scope create only", async () => {
      assert.ok(app && target);
      const createOnly = await app.server.token("create");
      const response = await app.syndicate("", { headers: { authorization: `Bearer ${createOnly}` } });
      const description = await assertError(response, 403, "insufficient_scope");
      assert.match(description, /update/);
      assert.equal(target.sandbox.requests.length, 0);
    });

    it("refuses one post with a query token of scope create only", async () => {
      assert.ok(app && target);
      const createOnly = await app.server.token("create media");
      const response = await app.syndicate(
        `?source_url=${encodeURIComponent(post)}&token=${encodeURIComponent(createOnly)}`,
        {},
        false,
      );
      await assertError(response, 403, "insufficient_scope");
      assert.equal(target.sandbox.requests.length, 0);
    });

    it("refuses a signed-in browser's form without its CSRF token", async () => {
      assert.ok(app && target);
      const { cookie } = await app.server.signIn();
      const response = await app.syndicate(
        "",
        {
          headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ _csrf: "wrong" }),
        },
        false,
      );
      await assertError(response, 403, "forbidden");
      assert.equal(target.sandbox.requests.length, 0);
      assert.deepEqual((await app.source(post))["mp-syndicate-to"], [target.uid]);
    });
  });
}
