// Decision 0012: X-Webhook-Signature must be a JWS signed HS256 with WEBHOOK_SECRET whose payload has
// iss "netlify" and the SHA-256 of the exact body. Every forgery (signed by an independent
// node:crypto implementation) is refused 401 with an error_description, and the targets receive
// nothing. Without WEBHOOK_SECRET no webhook is accepted. A request to /syndicate without a
// signature is not a webhook: it goes on to the authenticated endpoint, which wants credentials.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  closeAll,
  type EndpointServer,
  startEndpointServer,
  startTarget,
  type Target,
} from "../endpoint/endpoint-server.ts";
import { engines } from "../helpers/databases.ts";
import {
  compactJws,
  hmacWith,
  netlifyDeployBody,
  netlifySignature,
  OTHER_SECRET,
  rsaSha256,
  SECRET,
  sha256Hex,
} from "../helpers/webhook-signers.ts";
import { recentRuns, sendWebhook } from "./webhook-requests.ts";

const BODY = netlifyDeployBody();
const HS256 = { alg: "HS256", typ: "JWT" };

/** [what, body sent, X-Webhook-Signature, error_description pattern] */
const forgeries: Array<[string, string, string, RegExp]> = [
  ["signed with another secret", BODY, netlifySignature(BODY, OTHER_SECRET), /signature/i],
  [
    "alg none",
    BODY,
    compactJws({ alg: "none", typ: "JWT" }, { iss: "netlify", sha256: sha256Hex(BODY) }, () =>
      Buffer.alloc(0),
    ),
    /./,
  ],
  [
    "HS512",
    BODY,
    compactJws(
      { alg: "HS512", typ: "JWT" },
      { iss: "netlify", sha256: sha256Hex(BODY) },
      hmacWith("sha512", SECRET),
    ),
    /HS512; only HS256/,
  ],
  [
    "RS256",
    BODY,
    compactJws({ alg: "RS256", typ: "JWT" }, { iss: "netlify", sha256: sha256Hex(BODY) }, rsaSha256()),
    /RS256; only HS256/,
  ],
  [
    "a tampered body",
    BODY.replace('"context":"production"', '"context":"production" '),
    netlifySignature(BODY),
    /sha256|body/i,
  ],
  [
    "the signature of another deploy's body",
    netlifyDeployBody({ id: "the-one-sent" }),
    netlifySignature(netlifyDeployBody({ id: "the-one-signed" })),
    /sha256|body/i,
  ],
  [
    "iss github",
    BODY,
    compactJws(HS256, { iss: "github", sha256: sha256Hex(BODY) }, hmacWith("sha256", SECRET)),
    /iss/,
  ],
  ["no iss", BODY, compactJws(HS256, { sha256: sha256Hex(BODY) }, hmacWith("sha256", SECRET)), /iss/],
  ["no sha256", BODY, compactJws(HS256, { iss: "netlify" }, hmacWith("sha256", SECRET)), /sha256/],
  ["a malformed JWS", BODY, "not-a-jws", /./],
  ["an empty signature", BODY, "", /./],
];

for (const engine of engines) {
  describe(`forged Netlify webhooks are refused and start nothing (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    let unconfigured: EndpointServer | undefined;
    before(async () => {
      target = await startTarget();
      app = await startEndpointServer({ engine, targets: [target], env: { WEBHOOK_SECRET: SECRET } });
      await app.createPost({ content: "awaiting a deploy", targets: [target.uid] });
    });
    after(async () => {
      await app?.close();
      await unconfigured?.close();
      await closeAll(target);
    });

    for (const [what, body, signature, reason] of forgeries) {
      for (const path of ["/syndicate", "/syndicate/webhook/netlify"]) {
        it(`refuses ${what} at ${path} with 401`, async () => {
          assert.ok(app && target);
          const answer = await sendWebhook(app.url, path, body, { "x-webhook-signature": signature });
          assert.equal(answer.status, 401, JSON.stringify(answer.body));
          assert.equal(answer.body.error, "unauthorized");
          assert.match(String(answer.body.error_description), reason);
          assert.equal(target.sandbox.requests.length, 0, "the target received nothing");
        });
      }
    }

    it("started no run for any of them", async () => {
      assert.ok(app);
      assert.equal((await recentRuns(app.server)).length, 0);
    });

    it("sends a request to /syndicate without signature or token to the authenticated route: 401", async () => {
      assert.ok(app && target);
      const answer = await sendWebhook(app.url, "/syndicate", BODY, {});
      assert.equal(answer.status, 401);
      assert.equal(answer.body.error, "unauthorized");
      assert.match(String(answer.body.error_description), /access token/);
      assert.equal(target.sandbox.requests.length, 0);
    });

    it("refuses /syndicate/webhook/netlify without a signature", async () => {
      assert.ok(app && target);
      const answer = await sendWebhook(app.url, "/syndicate/webhook/netlify", BODY, {});
      assert.equal(answer.status, 401);
      assert.match(String(answer.body.error_description), /X-Webhook-Signature/);
      assert.equal(target.sandbox.requests.length, 0);
    });

    it("refuses a correctly signed deploy when WEBHOOK_SECRET is not set", async () => {
      assert.ok(target);
      unconfigured = await startEndpointServer({ engine, targets: [target] });
      await unconfigured.createPost({ content: "on a server without a secret", targets: [target.uid] });
      const answer = await sendWebhook(unconfigured.url, "/syndicate", BODY, {
        "x-webhook-signature": netlifySignature(BODY),
      });
      assert.equal(answer.status, 401);
      assert.match(String(answer.body.error_description), /WEBHOOK_SECRET/);
      assert.equal(target.sandbox.requests.length, 0);
      assert.equal((await recentRuns(unconfigured.server)).length, 0);
    });
  });
}
