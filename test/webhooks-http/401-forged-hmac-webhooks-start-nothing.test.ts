// Decision 0012: the GitHub and generic webhooks verify X-Hub-Signature-256 (HMAC-SHA256 of the raw
// body with WEBHOOK_SECRET, computed here with node:crypto alone). A missing, malformed or wrong
// signature, a changed body, or a signature from another body is refused 401 with an
// error_description, and the targets receive nothing.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { after, before, describe, it } from "node:test";
import {
  closeServerThenTargets,
  type EndpointServer,
  startWithOneTarget,
  type Target,
} from "../endpoint/endpoint-server.ts";
import { engines } from "../helpers/databases.ts";
import { deploymentStatusBody, hubSignature256, OTHER_SECRET, SECRET } from "../helpers/webhook-signers.ts";
import { recentRuns, sendWebhook } from "./webhook-requests.ts";

const BODY = deploymentStatusBody();

/** [what, body sent, headers, error_description pattern] */
const forgeries: Array<[string, string, Record<string, string>, RegExp]> = [
  ["no signature", BODY, {}, /no X-Hub-Signature-256/],
  [
    "a signature made with another secret",
    BODY,
    { "x-hub-signature-256": hubSignature256(BODY, OTHER_SECRET) },
    /does not match/,
  ],
  [
    "a changed body",
    BODY.replace('"success"', '"success" '),
    { "x-hub-signature-256": hubSignature256(BODY) },
    /does not match/,
  ],
  [
    "the signature of another body",
    deploymentStatusBody({ id: 2 }),
    { "x-hub-signature-256": hubSignature256(deploymentStatusBody({ id: 3 })) },
    /does not match/,
  ],
  [
    "an HMAC-SHA1 X-Hub-Signature only",
    BODY,
    { "x-hub-signature": `sha1=${createHmac("sha1", SECRET).update(BODY).digest("hex")}` },
    /no X-Hub-Signature-256/,
  ],
  [
    "a sha1= prefix in X-Hub-Signature-256",
    BODY,
    { "x-hub-signature-256": `sha1=${createHmac("sha1", SECRET).update(BODY).digest("hex")}` },
    /must be "sha256="/,
  ],
  [
    "a truncated digest",
    BODY,
    { "x-hub-signature-256": hubSignature256(BODY).slice(0, 40) },
    /must be "sha256="/,
  ],
];

for (const engine of engines) {
  describe(`forged HMAC webhooks are refused and start nothing (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    before(async () => {
      ({ target, app } = await startWithOneTarget(engine, { env: { WEBHOOK_SECRET: SECRET } }));
      await app.createPost({ content: "awaiting a deploy", targets: [target.uid] });
    });
    after(() => closeServerThenTargets(app, target));

    for (const [what, body, headers, reason] of forgeries) {
      for (const path of ["/syndicate/webhook/github", "/syndicate/webhook"]) {
        it(`refuses ${what} at ${path} with 401`, async () => {
          assert.ok(app && target);
          const answer = await sendWebhook(app.url, path, body, {
            "x-github-event": "deployment_status",
            ...headers,
          });
          assert.equal(answer.status, 401, JSON.stringify(answer.body));
          assert.equal(answer.body.error, "unauthorized");
          assert.match(String(answer.body.error_description), reason);
          assert.equal(target.sandbox.requests.length, 0);
        });
      }
    }

    it("started no run for any of them", async () => {
      assert.ok(app);
      assert.equal((await recentRuns(app.server)).length, 0);
    });
  });
}
