import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { netlifyDeployBody } from "../../../test/helpers/webhook-signers.ts";
import { decideNetlifyDeploy, parseNetlifyDeploy } from "./netlify-deploy.ts";

const production = ["production"];
const body = (overrides: Record<string, unknown> = {}) => Buffer.from(netlifyDeployBody(overrides));

describe("which Netlify deploys start a run", () => {
  it("starts a run for a ready production deploy", () => {
    const decision = decideNetlifyDeploy(body(), production);
    assert.deepEqual(decision, {
      start: true,
      summary: "Netlify production deploy 5ebc34bf4fea0b01f02efa3a of example-blog is ready",
    });
  });

  it("ignores a ready deploy preview, saying which contexts would start one", () => {
    const decision = decideNetlifyDeploy(body({ context: "deploy-preview" }), production);
    assert.deepEqual(decision, {
      start: false,
      outcome: "ignored",
      status: 200,
      reason: "deploy context deploy-preview is not one of: production",
    });
  });

  it("ignores a branch deploy unless branch-deploy is configured", () => {
    const branch = body({ context: "branch-deploy", branch: "drafts" });
    assert.equal(decideNetlifyDeploy(branch, production).start, false);
    assert.equal(decideNetlifyDeploy(branch, ["production", "branch-deploy"]).start, true);
  });

  it("ignores a failed deploy (state error), even in production", () => {
    const decision = decideNetlifyDeploy(
      body({ state: "error", error_message: "Build script returned 2" }),
      production,
    );
    assert.deepEqual(decision, {
      start: false,
      outcome: "ignored",
      status: 200,
      reason: "deploy state is error, not ready: only a successful deploy starts a run",
    });
  });

  it("ignores a deploy that is still building", () => {
    const decision = decideNetlifyDeploy(body({ state: "building" }), production);
    assert.equal(decision.start, false);
    assert.match(decision.start ? "" : decision.reason, /deploy state is building/);
  });

  it("answers a body that is not JSON as invalid (400), starting nothing", () => {
    const decision = decideNetlifyDeploy(Buffer.from("state=ready&context=production"), production);
    assert.deepEqual(decision, {
      start: false,
      outcome: "invalid_body",
      status: 400,
      reason: "The webhook body is not JSON; Netlify sends the deploy as a JSON object.",
    });
  });

  it("answers JSON that is not a deploy object as invalid, naming the field", () => {
    const noContext = JSON.stringify({ id: "1", site_id: "s", state: "ready" });
    const decision = decideNetlifyDeploy(Buffer.from(noContext), production);
    assert.equal(decision.start, false);
    assert.equal(decision.start ? undefined : decision.outcome, "invalid_body");
    assert.match(decision.start ? "" : decision.reason, /not a Netlify deploy object \(field context\)/);
    assert.equal(decideNetlifyDeploy(Buffer.from("[]"), production).start, false);
  });

  it("keeps the fields of the deploy object it does not know", () => {
    const parsed = parseNetlifyDeploy(body());
    assert.ok(parsed.ok);
    assert.equal(parsed.deploy.deploy_ssl_url, "https://5ebc34bf4fea0b01f02efa3a--example-blog.netlify.app");
    assert.equal(parsed.deploy.deploy_time, 159);
    assert.equal(parsed.deploy.build_id, "5ebc34bf4fea0b01f02efa38");
  });

  it("keeps sender text short and printable in reasons", () => {
    const decision = decideNetlifyDeploy(body({ context: `preview\n${"x".repeat(500)}` }), production);
    assert.equal(decision.start, false);
    const reason = decision.start ? "" : decision.reason;
    assert.ok(!reason.includes("\n"));
    assert.ok(reason.length < 200, reason);
  });
});
