import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { deploymentStatusBody } from "../../../test/helpers/webhook-signers.ts";
import { decideGitHubDeploy } from "./github-deploy.ts";

const production = ["production"];
const decide = (event: unknown, body: string, contexts: readonly string[] = production) =>
  decideGitHubDeploy({ event, rawBody: Buffer.from(body), contexts });

describe("which GitHub events start a run", () => {
  it("starts a run for a successful production deployment_status", () => {
    assert.deepEqual(decide("deployment_status", deploymentStatusBody()), {
      start: true,
      summary: "GitHub deployment to production of example/blog succeeded",
    });
  });

  it("ignores failure, error, pending and in_progress statuses", () => {
    for (const state of ["failure", "error", "pending", "in_progress", "queued", "inactive"]) {
      const decision = decide("deployment_status", deploymentStatusBody({ state }));
      assert.deepEqual(decision, {
        start: false,
        outcome: "ignored",
        status: 200,
        reason: `deployment state is ${state}, not success: only a successful deployment starts a run`,
      });
    }
  });

  it("ignores a successful deployment to an environment that is not configured", () => {
    const decision = decide("deployment_status", deploymentStatusBody({ environment: "Preview" }));
    assert.deepEqual(decision, {
      start: false,
      outcome: "ignored",
      status: 200,
      reason: "deployment environment Preview is not one of: production",
    });
  });

  it("matches environments without regard to case, and honours configured ones", () => {
    assert.equal(
      decide("deployment_status", deploymentStatusBody({ environment: "Production" })).start,
      true,
    );
    const pages = deploymentStatusBody({ environment: "github-pages" });
    assert.equal(decide("deployment_status", pages).start, false);
    assert.equal(decide("deployment_status", pages, ["production", "github-pages"]).start, true);
  });

  it("falls back to the deployment's environment when the status names none", () => {
    assert.equal(decide("deployment_status", deploymentStatusBody({ environment: undefined })).start, true);
  });

  it("answers ping with pong, and warns when the hook does not send deployment statuses", () => {
    const ping = JSON.stringify({
      zen: "Design for failure.",
      hook_id: 1,
      hook: { events: ["deployment_status"] },
    });
    assert.deepEqual(decide("ping", ping), {
      start: false,
      outcome: "pong",
      status: 200,
      reason: "pong: the webhook is set up",
    });
    const pushOnly = JSON.stringify({ zen: "Keep it logically awesome.", hook: { events: ["push"] } });
    const decision = decide("ping", pushOnly);
    assert.equal(decision.start, false);
    assert.equal(decision.start ? undefined : decision.outcome, "pong");
    assert.match(decision.start ? "" : decision.reason, /does not send Deployment statuses events/);
  });

  it("ignores other events, naming them", () => {
    assert.deepEqual(decide("push", JSON.stringify({ ref: "refs/heads/main" })), {
      start: false,
      outcome: "ignored",
      status: 200,
      reason: "GitHub event push does not start a run; only deployment_status does",
    });
    assert.equal(decide("deployment", JSON.stringify({ deployment: {} })).start, false);
  });

  it("answers a missing or malformed X-GitHub-Event as invalid (400)", () => {
    for (const event of [undefined, "", "Deployment Status", ["deployment_status", "ping"], 3]) {
      const decision = decide(event, deploymentStatusBody());
      assert.equal(decision.start, false);
      assert.equal(decision.start ? undefined : decision.status, 400, String(event));
    }
  });

  it("says which: no X-GitHub-Event header, or one that is not an event name", () => {
    const reason = (event: unknown) => {
      const decision = decide(event, deploymentStatusBody());
      return decision.start ? undefined : decision.reason;
    };
    assert.equal(reason(undefined), "The request has no X-GitHub-Event header.");
    assert.equal(reason("Deployment Status"), "The X-GitHub-Event header is not a GitHub event name.");
  });

  it("ignores a successful deployment that names no environment, in its status or its deployment", () => {
    const body = JSON.parse(deploymentStatusBody({ environment: "" }));
    delete body.deployment;
    assert.deepEqual(decide("deployment_status", JSON.stringify(body)), {
      start: false,
      outcome: "ignored",
      status: 200,
      reason: "the deployment names no environment, so it cannot be one of the contexts",
    });
  });

  it("answers a form-encoded or non-event body as invalid, saying to use application/json", () => {
    const form = `payload=${encodeURIComponent(deploymentStatusBody())}`;
    const decision = decide("deployment_status", form);
    assert.equal(decision.start ? undefined : decision.outcome, "invalid_body");
    assert.match(decision.start ? "" : decision.reason, /content type to application\/json/);
    const noStatus = decide(
      "deployment_status",
      JSON.stringify({ deployment: { environment: "production" } }),
    );
    assert.equal(noStatus.start ? undefined : noStatus.outcome, "invalid_body");
  });
});
