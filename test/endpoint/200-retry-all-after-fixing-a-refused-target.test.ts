// A bad Mastodon token refuses the run's first post (the target is then left alone for the rest of
// the run). Once the token works again, "Syndicate all" leaves the refused post waiting for the
// user; POST {mountPath}/retry sends every target that needs attention in one run, under the same
// lease, and the page offers it only while something needs attention.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import {
  assertError,
  type BatchBody,
  closeServerThenTargets,
  type EndpointServer,
  startWithOneTarget,
  type Target,
} from "./endpoint-server.ts";

for (const engine of engines) {
  describe(`retrying everything that needs attention (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    before(async () => {
      ({ target, app } = await startWithOneTarget(engine));
    });
    after(() => closeServerThenTargets(app, target));

    const page = async () => {
      assert.ok(app);
      const { cookie } = await app.server.signIn();
      return (await fetch(`${app.url}/syndicate`, { headers: { cookie, accept: "text/html" } })).text();
    };

    it("sends the refused post again in one run once the cause is fixed", async () => {
      assert.ok(app && target);
      target.sandbox.setFailure(401, "The access token is invalid");
      for (const content of ["one", "two", "three"]) await app.createPost({ content, targets: [target.uid] });
      const refused = (await (await app.syndicate()).json()) as BatchBody;
      assert.deepEqual(
        refused.results.map((result) => result.targets[0]?.status),
        ["failed", "skipped", "skipped"],
        "one refusal, then the target is left alone",
      );
      assert.match(await page(), /id="retry-all"/, "the refused post waits for the user");

      target.sandbox.clearBehaviour();
      const batch = (await (await app.syndicate()).json()) as BatchBody;
      assert.deepEqual(
        batch.results.map((result) => result.targets[0]?.status),
        ["skipped", "syndicated", "syndicated"],
        "a plain batch leaves the refused post for the user",
      );
      const html = await page();
      assert.match(html, /id="retry-all"/);
      assert.match(html, /1 post has a target that was refused/);

      const retried = (await (await app.syndicate("/retry")).json()) as BatchBody;
      assert.deepEqual(
        retried.results.map((result) => result.targets[0]?.status),
        ["syndicated"],
      );
      assert.equal(target.sandbox.statuses.length, 3, "each post once");
      const after = await page();
      assert.doesNotMatch(after, /id="retry-all"/, "nothing needs attention any more");
      // Recent runs names the retry as a retry, not as "Syndicate all" (decision 0021).
      const runs = after.slice(after.indexOf('id="recent-runs"'));
      assert.match(runs, /data-label="Started by">Retry</, "the retry is listed as a retry");
    });

    it("names one post only through its own retry", async () => {
      assert.ok(app);
      const answer = await app.syndicate(`/retry?source_url=${encodeURIComponent(`${app.url}/notes/one/`)}`);
      assert.match(await assertError(answer, 400, "invalid_request"), /\/posts\/<id>\/retry/);
    });
  });
}
