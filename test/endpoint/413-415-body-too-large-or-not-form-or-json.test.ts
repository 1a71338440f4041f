// Decision 0009: 413 for a body over the server's limit (100 kB), 415 for a body that is neither
// form-encoded nor JSON. Nothing is sent.
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
  describe(`POST /syndicate refuses bodies it will not read (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    let post = "";
    before(async () => {
      ({ target, app } = await startWithOneTarget(engine));
      post = await app.createPost({ content: "waiting", targets: [target.uid] });
    });
    after(() => closeServerThenTargets(app, target));

    it("answers 413 to a form body over 100 kB", async () => {
      assert.ok(app && target);
      const response = await app.syndicate("", {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ source_url: post, padding: "x".repeat(100_001) }),
      });
      await assertError(response, 413, "payload_too_large");
      assert.equal(target.sandbox.requests.length, 0);
    });

    it("answers 413 to a JSON body over 100 kB", async () => {
      assert.ok(app && target);
      const response = await app.syndicate("", {
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ source_url: post, padding: "x".repeat(100_001) }),
      });
      await assertError(response, 413, "payload_too_large");
      assert.equal(target.sandbox.requests.length, 0);
    });

    it("answers 415 to a text/plain body, naming the types it reads", async () => {
      assert.ok(app && target);
      const response = await app.syndicate("", {
        headers: { "content-type": "text/plain" },
        body: `source_url=${post}`,
      });
      const description = await assertError(response, 415, "unsupported_media_type");
      assert.match(description, /application\/x-www-form-urlencoded/);
      assert.match(description, /application\/json/);
      assert.equal(target.sandbox.requests.length, 0);
    });

    it("answers 415 to a body without a Content-Type", async () => {
      assert.ok(app && target);
      const response = await app.syndicate("", { body: new Blob([`source_url=${post}`]) });
      await assertError(response, 415, "unsupported_media_type");
      assert.equal(target.sandbox.requests.length, 0);
      assert.deepEqual((await app.source(post))["mp-syndicate-to"], [target.uid]);
    });
  });
}
