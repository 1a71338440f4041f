// Decision 0010: a target that fails is reported failed with its own message while the others
// succeed (status partial); it is retried on a later run, and the targets already syndicated are
// never called again.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import {
  type BatchBody,
  closeServerThenTargets,
  type EndpointServer,
  startWithTargets,
  type Target,
} from "./endpoint-server.ts";

for (const engine of engines) {
  describe(`a failing target fails alone and is retried later (${engine.name})`, () => {
    let targets: Target[] = [];
    let app: EndpointServer | undefined;
    before(async () => {
      ({ targets, app } = await startWithTargets(2, { engine }));
    });
    after(() => closeServerThenTargets(app, ...targets));

    it("reports partial, the failure in the target's words, and keeps the target awaiting", async () => {
      const [working, failing] = targets;
      assert.ok(app && working && failing);
      const post = await app.createPost({ content: "partly", targets: [working.uid, failing.uid] });
      failing.sandbox.setFailure(503, "The server is down for maintenance");

      const answer = await app.syndicate();
      assert.equal(answer.status, 200);
      const body = (await answer.json()) as BatchBody;
      assert.deepEqual(body.summary, { posts: 1, syndicated: 0, partial: 1, failed: 0, skipped: 0 });
      const [result] = body.results;
      assert.equal(result?.status, "partial");
      const copy = working.sandbox.statuses[0]?.url;
      assert.deepEqual(result?.targets[0], {
        uid: working.uid,
        name: working.syndicator().info.name,
        status: "syndicated",
        url: copy,
      });
      assert.equal(result?.targets[1]?.uid, failing.uid);
      assert.equal(result?.targets[1]?.status, "failed");
      assert.match(result?.targets[1]?.error ?? "", /The server is down for maintenance/);
      assert.deepEqual(result?.syndication, [copy]);
      assert.equal(failing.sandbox.statuses.length, 0);

      const properties = await app.source(post);
      assert.deepEqual(properties.syndication, [copy]);
      assert.deepEqual(properties["mp-syndicate-to"], [failing.uid]);
    });

    it("retries the failed target on a later run once its wait is over, without the others", async () => {
      const [working, failing] = targets;
      assert.ok(app?.server.host.database && working && failing);
      failing.sandbox.clearBehaviour();
      const failedRequests = failing.sandbox.requests.length;

      // Straight away the target is waiting for its retry: the post is unchanged, nothing is sent.
      const soon = (await (await app.syndicate()).json()) as BatchBody;
      assert.equal(soon.results[0]?.status, "unchanged");
      const waiting = soon.results[0]?.targets.find((target) => target.uid === failing.uid);
      assert.equal(waiting?.status, "skipped");
      assert.match(waiting?.error ?? "", /next attempt after/);
      assert.equal(failing.sandbox.requests.length, failedRequests);

      // The wait is over (as a few minutes later).
      await app.server.host.database.query(
        "UPDATE syndication_targets SET next_attempt_at = now() - interval '1 second' WHERE state = 'failed'",
      );
      const later = (await (await app.syndicate()).json()) as BatchBody;
      assert.deepEqual(later.summary, { posts: 1, syndicated: 1, partial: 0, failed: 0, skipped: 0 });
      const retried = later.results[0];
      const statusOf = (uid: string) => retried?.targets.find((target) => target.uid === uid)?.status;
      assert.equal(retried?.targets.length, 2);
      assert.equal(statusOf(working.uid), "already_syndicated");
      assert.equal(statusOf(failing.uid), "syndicated");
      assert.equal(working.sandbox.statuses.length, 1, "the syndicated target is not called again");
      assert.equal(failing.sandbox.statuses.length, 1);
      const copies = [working.sandbox.statuses[0]?.url, failing.sandbox.statuses[0]?.url];
      assert.deepEqual(retried?.syndication, copies);
      const properties = await app.source(retried?.url ?? "");
      assert.deepEqual(properties.syndication, copies);
      assert.equal(properties["mp-syndicate-to"], undefined);
    });
  });
}
