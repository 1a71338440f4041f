import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import { netlifyDeployBody } from "../../../test/helpers/webhook-signers.ts";
import { deliveryKeys } from "./delivery-keys.ts";

const body = Buffer.from('{"deployment":{"id":1}}');
const hash = createHash("sha256").update(body).digest("hex");

describe("what makes a webhook delivery itself (replay protection)", () => {
  it("is GitHub's delivery id and the signed body's hash, so that a new id on a captured body is still a replay", () => {
    assert.deepEqual(
      deliveryKeys(
        "github",
        { "x-github-delivery": "72d3162e-cc78-11e3-81ab-4c9367dc0958" },
        body,
        undefined,
      ),
      [`github:body:${hash}`, "github:delivery:72d3162e-cc78-11e3-81ab-4c9367dc0958"],
    );
    const other = Buffer.from('{"deployment":{"id":2}}');
    assert.notEqual(deliveryKeys("github", {}, other, undefined)[0], `github:body:${hash}`);
  });

  it("keeps no GitHub delivery id that is missing, repeated, unprintable or longer than 100 characters", () => {
    for (const delivery of [undefined, ["a", "b"], "", "has space", "tab\there", "x".repeat(101)]) {
      assert.deepEqual(
        deliveryKeys("github", { "x-github-delivery": delivery }, body, undefined),
        [`github:body:${hash}`],
        String(delivery),
      );
    }
    assert.equal(deliveryKeys("github", { "x-github-delivery": "x".repeat(100) }, body, undefined).length, 2);
    assert.equal(
      deliveryKeys("github", { "x-github-delivery": "!~" }, body, undefined)[1],
      "github:delivery:!~",
    );
  });

  it("is a Netlify deploy's id and state (one deploy notifies building, then ready), the body's hash when unreadable", () => {
    const ready = Buffer.from(netlifyDeployBody({ id: "d1", state: "ready" }));
    const building = Buffer.from(netlifyDeployBody({ id: "d1", state: "building" }));
    assert.deepEqual(deliveryKeys("netlify", {}, ready, undefined), ["netlify:deploy:d1:ready"]);
    assert.deepEqual(deliveryKeys("netlify", {}, building, undefined), ["netlify:deploy:d1:building"]);
    assert.deepEqual(deliveryKeys("netlify", {}, body, undefined), [`netlify:body:${hash}`]);
  });

  it("is the generic webhook's signed timestamp with the body's hash, so that the same body can come again later", () => {
    assert.deepEqual(deliveryKeys("generic", {}, body, "1764300000"), [`generic:1764300000:${hash}`]);
    assert.deepEqual(deliveryKeys("generic", {}, body, undefined), [`generic:-:${hash}`]);
  });
});
