// Decision 0012: a correctly signed Netlify "Deploy succeeded" of the production context, sent to
// {base_url}/syndicate as spec §5 sets it up (or to /syndicate/webhook/netlify), runs the endpoint's
// own batch (trigger "webhook") and answers every awaiting post's result. Previews, branch deploys
// and failed deploys are answered 200 "ignored" and send nothing. The run goes on to its end when
// the provider hangs up early.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PostResult, RunSummary } from "../../src/syndication/types.ts";
import {
  closeServerThenTargets,
  type EndpointServer,
  startWithTargets,
  type Target,
  texts,
  until,
} from "../endpoint/endpoint-server.ts";
import { engines } from "../helpers/databases.ts";
import { netlifyDeployBody, netlifySignature, SECRET } from "../helpers/webhook-signers.ts";
import { recentRuns, sendWebhook } from "./webhook-requests.ts";

const netlify = (app: EndpointServer, path: string, body: string, init: RequestInit = {}) =>
  sendWebhook(app.url, path, body, { "x-webhook-signature": netlifySignature(body) }, init);

for (const engine of engines) {
  describe(`Netlify's deploy webhook (${engine.name})`, () => {
    let targets: Target[] = [];
    let app: EndpointServer | undefined;
    let waiting = "";
    before(async () => {
      ({ targets, app } = await startWithTargets(2, { engine, env: { WEBHOOK_SECRET: SECRET } }));
      waiting = await app.createPost({
        content: "awaiting a deploy",
        targets: targets.map((target) => target.uid),
        published: "2024-05-13T15:00:00Z",
      });
    });
    after(() => closeServerThenTargets(app, ...targets));

    const ignoredDeploys: Array<[string, Record<string, unknown>, RegExp]> = [
      [
        "a deploy preview",
        { context: "deploy-preview", review_id: 12 },
        /context deploy-preview is not one of: production/,
      ],
      ["a branch deploy", { context: "branch-deploy", branch: "draft" }, /context branch-deploy/],
      [
        "a failed deploy",
        { state: "error", error_message: "Build script returned non-zero exit code" },
        /state is error/,
      ],
      ["a deploy still building", { state: "building" }, /state is building/],
    ];
    for (const [what, overrides, reason] of ignoredDeploys) {
      it(`answers 200 "ignored" to ${what}, sending nothing`, async () => {
        assert.ok(app);
        // Each deploy has its own id, as on Netlify (a repeated id and state would be a replay).
        const answer = await netlify(
          app,
          "/syndicate",
          netlifyDeployBody({ id: `deploy of ${what}`, ...overrides }),
        );
        assert.equal(answer.status, 200);
        assert.equal(answer.body.status, "ignored");
        assert.match(String(answer.body.reason), reason);
        for (const target of targets) assert.equal(target.sandbox.requests.length, 0);
        assert.equal((await recentRuns(app.server)).length, 0, "no run was started");
      });
    }

    it("syndicates every awaiting post on a production deploy sent to /syndicate", async () => {
      assert.ok(app);
      const uids = targets.map((target) => target.uid);
      const second = await app.createPost({
        content: "second",
        targets: uids,
        published: "2024-05-13T17:00:00Z",
      });
      const first = await app.createPost({
        content: "first",
        targets: uids,
        published: "2024-05-13T16:00:00Z",
      });
      const answer = await netlify(app, "/syndicate", netlifyDeployBody());
      assert.equal(answer.status, 200);
      const results = answer.body.results as PostResult[];
      // The post made before the ignored deploys was waiting too, and is the oldest.
      assert.deepEqual(
        results.map((result) => [result.url, result.status]),
        [
          [waiting, "syndicated"],
          [first, "syndicated"],
          [second, "syndicated"],
        ],
      );
      assert.deepEqual(answer.body.summary, {
        posts: 3,
        syndicated: 3,
        partial: 0,
        failed: 0,
        skipped: 0,
      } satisfies RunSummary);
      for (const target of targets) assert.deepEqual(texts(target), ["awaiting a deploy", "first", "second"]);
      for (const url of [first, second]) assert.equal((await app.source(url))["mp-syndicate-to"], undefined);

      const [run] = await recentRuns(app.server);
      assert.equal(run?.kind, "batch");
      assert.equal(run?.trigger, "webhook");
      assert.equal(run?.status, "finished");
      assert.deepEqual(run?.summary, { posts: 3, syndicated: 3, partial: 0, failed: 0, skipped: 0 });
    });

    it("does the same at /syndicate/webhook/netlify", async () => {
      assert.ok(app);
      const uids = targets.map((target) => target.uid);
      const post = await app.createPost({ content: "third", targets: uids });
      const answer = await netlify(
        app,
        "/syndicate/webhook/netlify",
        netlifyDeployBody({ id: "another-deploy" }),
      );
      assert.equal(answer.status, 200);
      assert.deepEqual(
        (answer.body.results as PostResult[]).map((result) => [result.url, result.status]),
        [[post, "syndicated"]],
      );
      for (const target of targets) assert.equal(texts(target).at(-1), "third");
      assert.equal((await recentRuns(app.server))[0]?.trigger, "webhook");
    });

    it("answers an empty run when nothing is awaiting", async () => {
      assert.ok(app);
      const answer = await netlify(app, "/syndicate", netlifyDeployBody({ id: "quiet-deploy" }));
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body.results, []);
      assert.deepEqual(answer.body.summary, { posts: 0, syndicated: 0, partial: 0, failed: 0, skipped: 0 });
    });

    it("finishes the run when Netlify hangs up before the answer", async () => {
      assert.ok(app);
      const [slow] = targets;
      assert.ok(slow);
      const uids = targets.map((target) => target.uid);
      const before = slow.sandbox.statuses.length;
      const statusPosts = () =>
        slow.sandbox.requests.filter((r) => r.method === "POST" && r.path === "/api/v1/statuses").length;
      const postedBefore = statusPosts();
      for (const content of ["late 1", "late 2"]) await app.createPost({ content, targets: uids });
      slow.sandbox.setBehaviour({ hangMs: 500, times: 1 });
      const provider = new AbortController();
      const sent = netlify(app, "/syndicate", netlifyDeployBody({ id: "impatient" }), {
        signal: provider.signal,
      });
      await until("the run is sending", () => statusPosts() > postedBefore);
      provider.abort();
      await assert.rejects(sent, { name: "AbortError" });
      await until("both posts reached every target", () =>
        targets.every((target) => target.sandbox.statuses.length === before + 2),
      );
      await app.syndication().runs.idle();
      const [run] = await recentRuns(app.server);
      assert.equal(run?.trigger, "webhook");
      assert.equal(run?.status, "finished");
      assert.equal(run?.summary.syndicated, 2);
    });
  });
}
