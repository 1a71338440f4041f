// Decision 0012, for sites deployed elsewhere: /syndicate/webhook/github takes GitHub's webhook
// (X-Hub-Signature-256, the HMAC-SHA256 of the raw body with WEBHOOK_SECRET): ping answers 200, a
// deployment_status with state success to a configured environment runs the batch, any other state
// is ignored. /syndicate/webhook takes the same signature from any sender and runs the batch.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import type { PostResult } from "../../src/syndication/types.ts";
import {
  closeServerThenTargets,
  type EndpointServer,
  startWithOneTarget,
  type Target,
  texts,
} from "../endpoint/endpoint-server.ts";
import { engines } from "../helpers/databases.ts";
import { deploymentStatusBody, hubSignature256, SECRET } from "../helpers/webhook-signers.ts";
import { recentRuns, sendWebhook } from "./webhook-requests.ts";

for (const engine of engines) {
  describe(`GitHub and generic HMAC webhooks (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    let waiting = "";
    before(async () => {
      ({ target, app } = await startWithOneTarget(engine, { env: { WEBHOOK_SECRET: SECRET } }));
      waiting = await app.createPost({ content: "awaiting a deploy", targets: [target.uid] });
    });
    after(() => closeServerThenTargets(app, target));

    const github = (event: string, body: string) => {
      assert.ok(app);
      return sendWebhook(app.url, "/syndicate/webhook/github", body, {
        "x-github-event": event,
        // GitHub names every delivery anew (a repeated one is a replay).
        "x-github-delivery": randomUUID(),
        "x-hub-signature-256": hubSignature256(body),
        "user-agent": "GitHub-Hookshot/044aadd",
      });
    };

    it("answers ping with 200, starting nothing", async () => {
      assert.ok(target);
      const answer = await github(
        "ping",
        JSON.stringify({ zen: "Design for failure.", hook_id: 1, hook: { events: ["deployment_status"] } }),
      );
      assert.equal(answer.status, 200);
      assert.equal(answer.body.status, "pong");
      assert.equal(target.sandbox.requests.length, 0);
    });

    for (const [what, status, reason] of [
      ["a failed deployment", { state: "failure" }, /state is failure/],
      ["a deployment in progress", { state: "in_progress" }, /state is in_progress/],
      ["a successful preview deployment", { environment: "Preview" }, /environment Preview is not one of/],
    ] as const) {
      it(`answers 200 "ignored" to ${what}, sending nothing`, async () => {
        assert.ok(app && target);
        const answer = await github("deployment_status", deploymentStatusBody(status));
        assert.equal(answer.status, 200);
        assert.equal(answer.body.status, "ignored");
        assert.match(String(answer.body.reason), reason);
        assert.equal(target.sandbox.requests.length, 0);
        assert.equal((await recentRuns(app.server)).length, 0);
      });
    }

    it("ignores events other than deployment_status", async () => {
      assert.ok(target);
      const answer = await github("push", JSON.stringify({ ref: "refs/heads/main" }));
      assert.equal(answer.status, 200);
      assert.equal(answer.body.status, "ignored");
      assert.equal(target.sandbox.requests.length, 0);
    });

    it("runs the batch on a successful production deployment_status", async () => {
      assert.ok(app && target);
      const answer = await github("deployment_status", deploymentStatusBody({ environment: "Production" }));
      assert.equal(answer.status, 200);
      assert.deepEqual(
        (answer.body.results as PostResult[]).map((result) => [result.url, result.status]),
        [[waiting, "syndicated"]],
      );
      assert.deepEqual(texts(target), ["awaiting a deploy"]);
      const [run] = await recentRuns(app.server);
      assert.equal(run?.trigger, "webhook");
      assert.equal(run?.kind, "batch");
    });

    it("runs the batch on a signed request to the generic /syndicate/webhook", async () => {
      assert.ok(app && target);
      const post = await app.createPost({ content: "built by a script", targets: [target.uid] });
      const body = JSON.stringify({ site: "blog", deployed: true });
      const answer = await sendWebhook(app.url, "/syndicate/webhook", body, {
        "x-hub-signature-256": hubSignature256(body),
      });
      assert.equal(answer.status, 200);
      assert.deepEqual(
        (answer.body.results as PostResult[]).map((result) => [result.url, result.status]),
        [[post, "syndicated"]],
      );
      assert.deepEqual(texts(target), ["awaiting a deploy", "built by a script"]);
      assert.equal((await recentRuns(app.server))[0]?.trigger, "webhook");
    });
  });
}
