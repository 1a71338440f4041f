// Decision 0012: a webhook's run is the endpoint's own batch run, under the same lease. A webhook that
// arrives during a run gets the endpoint's 409 "already in progress" (and so does an authenticated
// batch during a webhook's run), and the run in progress picks up posts that arrived meanwhile.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PostResult } from "../../src/syndication/types.ts";
import {
  type BatchBody,
  closeServerThenTargets,
  type EndpointServer,
  startWithOneTarget,
  type Target,
  texts,
  until,
} from "../endpoint/endpoint-server.ts";
import { engines } from "../helpers/databases.ts";
import { netlifyDeployBody, netlifySignature, SECRET } from "../helpers/webhook-signers.ts";
import { recentRuns, sendWebhook } from "./webhook-requests.ts";

const IN_PROGRESS = {
  error: "syndication_in_progress",
  error_description: "Syndication is already in progress",
};

for (const engine of engines) {
  describe(`webhooks and batches share one run at a time (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    before(async () => {
      ({ target, app } = await startWithOneTarget(engine, { env: { WEBHOOK_SECRET: SECRET } }));
    });
    after(() => closeServerThenTargets(app, target));

    const deploy = (id: string) => {
      assert.ok(app);
      const body = netlifyDeployBody({ id });
      return sendWebhook(app.url, "/syndicate", body, { "x-webhook-signature": netlifySignature(body) });
    };

    it("answers 409 to a webhook during a run, which includes the posts made meanwhile", async () => {
      assert.ok(app && target);
      const sandbox = target.sandbox;
      const first = await app.createPost({ content: "before the deploy", targets: [target.uid] });
      sandbox.setBehaviour({ hangMs: 1_500, times: 1 });
      const running = deploy("first-deploy");
      await until("the webhook's run is sending", () => sandbox.requests.length > 0);

      const meanwhile = await app.createPost({ content: "made during the run", targets: [target.uid] });
      const second = await deploy("second-deploy");
      assert.equal(second.status, 409);
      assert.deepEqual(second.body, IN_PROGRESS);
      assert.match(second.headers.get("retry-after") ?? "", /^[1-9]\d*$/);
      const batch = await app.syndicate();
      assert.equal(batch.status, 409);
      assert.deepEqual(await batch.json(), IN_PROGRESS);

      const answer = await running;
      assert.equal(answer.status, 200);
      assert.deepEqual(
        (answer.body.results as PostResult[]).map((result) => [result.url, result.status]),
        [
          [first, "syndicated"],
          [meanwhile, "syndicated"],
        ],
      );
      assert.deepEqual(texts(target), ["before the deploy", "made during the run"]);
      const runs = await recentRuns(app.server);
      assert.equal(runs.length, 1, "the refused requests started no run");
      assert.equal(runs[0]?.trigger, "webhook");
    });

    it("answers 409 to a webhook during an authenticated batch", async () => {
      assert.ok(app && target);
      const sandbox = target.sandbox;
      const sent = sandbox.requests.length;
      await app.createPost({ content: "sent by hand", targets: [target.uid] });
      sandbox.setBehaviour({ hangMs: 1_500, times: 1 });
      const running = app.syndicate();
      await until("the batch is sending", () => sandbox.requests.length > sent);

      const webhook = await deploy("third-deploy");
      assert.equal(webhook.status, 409);
      assert.deepEqual(webhook.body, IN_PROGRESS);

      const answer = await running;
      assert.equal(answer.status, 200);
      assert.equal(((await answer.json()) as BatchBody).summary.posts, 1);
      assert.equal(texts(target).filter((text) => text === "sent by hand").length, 1);
      const [run] = await recentRuns(app.server);
      assert.equal(run?.trigger, "batch");
    });
  });
}
