// Decision 0009: 404 not_found when no post is at source_url (never published here, or deleted).
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
  describe(`POST /syndicate?source_url answers 404 when no post is there (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    before(async () => {
      ({ target, app } = await startWithOneTarget(engine));
    });
    after(() => closeServerThenTargets(app, target));

    it("answers 404 for a URL of this site where no post was ever made", async () => {
      assert.ok(app && target);
      const missing = `${app.url}/notes/never-written/`;
      const description = await assertError(
        await app.syndicate(`?source_url=${encodeURIComponent(missing)}`),
        404,
        "not_found",
      );
      assert.match(description, new RegExp(`No post exists at ${missing.replace(/[.?/]/g, "\\$&")}`));
    });

    it("answers 404 for a URL that differs from a post's by a trailing slash", async () => {
      assert.ok(app && target);
      const post = await app.createPost({ content: "exact", targets: [target.uid] });
      const response = await app.syndicate(`?source_url=${encodeURIComponent(post.replace(/\/$/, ""))}`);
      await assertError(response, 404, "not_found");
      assert.equal(target.sandbox.requests.length, 0);
    });

    it("answers 404 for a deleted post, and sends nothing", async () => {
      assert.ok(app && target);
      const post = await app.createPost({ content: "deleted", targets: [target.uid] });
      const deleter = await app.server.token("delete");
      const deleted = await fetch(`${app.url}/micropub`, {
        method: "POST",
        headers: { authorization: `Bearer ${deleter}`, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ action: "delete", url: post }),
      });
      assert.equal(deleted.status, 204);
      await assertError(await app.syndicate(`?source_url=${encodeURIComponent(post)}`), 404, "not_found");
      assert.equal(target.sandbox.requests.length, 0);
    });
  });
}
