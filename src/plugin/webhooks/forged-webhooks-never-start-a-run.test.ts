import assert from "node:assert/strict";
import type { IncomingHttpHeaders } from "node:http";
import { describe, it } from "node:test";
import {
  compactJws,
  deploymentStatusBody,
  hmacWith,
  hubSignature256,
  netlifyDeployBody,
  netlifySignature,
  OTHER_SECRET,
  SECRET,
  sha256Hex,
} from "../../../test/helpers/webhook-signers.ts";
import { carriesNetlifySignature, receiveWebhook, type WebhookVerdict } from "./receive.ts";
import type { WebhookProvider } from "./webhook-provider.ts";

const settings = { secret: SECRET, contexts: ["production"] };

function receive(
  provider: WebhookProvider,
  headers: IncomingHttpHeaders,
  body: string | Buffer,
  secret = SECRET,
) {
  return receiveWebhook({ provider, headers, rawBody: Buffer.from(body) }, { ...settings, secret });
}

function assertRefused(verdict: WebhookVerdict, status: number, reason: RegExp) {
  assert.equal(verdict.start, false, "nothing may start");
  if (verdict.start) return;
  assert.equal(verdict.status, status, verdict.reason);
  assert.match(verdict.reason, reason);
}

describe("Netlify: only a correctly signed, ready production deploy starts a run", () => {
  const body = netlifyDeployBody();
  const signed = (signature: string): IncomingHttpHeaders => ({ "x-webhook-signature": signature });

  it("starts a run for a correctly signed production deploy", async () => {
    const verdict = await receive("netlify", signed(netlifySignature(body)), body);
    assert.equal(verdict.start, true);
  });

  it("refuses forgeries with 401", async () => {
    const claims = { iss: "netlify", sha256: sha256Hex(body) };
    const forgeries: Array<[string, string, string | Buffer]> = [
      ["wrong secret", netlifySignature(body, OTHER_SECRET), body],
      ["alg none", compactJws({ alg: "none" }, claims, () => Buffer.alloc(0)), body],
      ["unsigned x.y.", "x.y.", body],
      ["HS512", compactJws({ alg: "HS512" }, claims, hmacWith("sha512", SECRET)), body],
      ["tampered body", netlifySignature(body), body.replace("example-blog", "evil-blog")],
      [
        "wrong iss",
        compactJws({ alg: "HS256" }, { ...claims, iss: "github" }, hmacWith("sha256", SECRET)),
        body,
      ],
      [
        "missing iss",
        compactJws({ alg: "HS256" }, { sha256: claims.sha256 }, hmacWith("sha256", SECRET)),
        body,
      ],
      ["missing sha256", compactJws({ alg: "HS256" }, { iss: "netlify" }, hmacWith("sha256", SECRET)), body],
      ["malformed JWS", "eyJhbGciOiJIUzI1NiJ9", body],
      [
        "signature of another body",
        netlifySignature(netlifyDeployBody({ context: "deploy-preview" })),
        netlifyDeployBody({ context: "production" }),
      ],
    ];
    for (const [name, signature, sent] of forgeries) {
      const verdict = await receive("netlify", signed(signature), sent);
      assert.equal(verdict.start, false, name);
      assert.equal(verdict.start ? undefined : verdict.outcome, "unauthorized", name);
      assert.equal(verdict.start ? undefined : verdict.status, 401, name);
    }
  });

  it("refuses everything with 401 when WEBHOOK_SECRET is not set", async () => {
    const verdict = await receiveWebhook(
      { provider: "netlify", headers: signed(netlifySignature(body)), rawBody: Buffer.from(body) },
      { secret: undefined, contexts: ["production"] },
    );
    assertRefused(verdict, 401, /WEBHOOK_SECRET is not set/);
  });

  it("verifies before reading the body: a forged malformed body is 401, not 400", async () => {
    assertRefused(
      await receive("netlify", signed(netlifySignature("{}", OTHER_SECRET)), "not json"),
      401,
      /./,
    );
  });

  it("answers 200 ignored for a signed preview or failed deploy", async () => {
    const preview = netlifyDeployBody({ context: "deploy-preview" });
    assertRefused(
      await receive("netlify", signed(netlifySignature(preview)), preview),
      200,
      /deploy-preview/,
    );
    const failed = netlifyDeployBody({ state: "error" });
    assertRefused(await receive("netlify", signed(netlifySignature(failed)), failed), 200, /state is error/);
  });

  it("answers 400 for a signed body that is not a deploy", async () => {
    assertRefused(await receive("netlify", signed(netlifySignature("nope")), "nope"), 400, /not JSON/);
  });

  it("tells a Netlify webhook on the endpoint from an authenticated request by its header", () => {
    assert.equal(carriesNetlifySignature(signed("x")), true);
    assert.equal(carriesNetlifySignature({ authorization: "Bearer token" }), false);
  });
});

describe("GitHub and generic webhooks: only a correct X-Hub-Signature-256 is heard", () => {
  const body = deploymentStatusBody();
  const github = (signature: string, event = "deployment_status"): IncomingHttpHeaders => ({
    "x-hub-signature-256": signature,
    "x-github-event": event,
  });

  it("starts a run for a signed successful production deployment_status", async () => {
    assert.equal((await receive("github", github(hubSignature256(body)), body)).start, true);
  });

  it("refuses a wrong secret, a bad prefix, a wrong length and a tampered body with 401", async () => {
    const hex = hubSignature256(body).slice("sha256=".length);
    for (const [signature, sent] of [
      [hubSignature256(body, OTHER_SECRET), body],
      [`sha1=${hex}`, body],
      [`sha256=${hex.slice(2)}`, body],
      [hubSignature256(body), deploymentStatusBody({ environment: "staging" })],
    ] as const) {
      assertRefused(await receive("github", github(signature), sent), 401, /X-Hub-Signature-256/);
    }
  });

  it("does not accept a Netlify signature on the GitHub route", async () => {
    const verdict = await receive("github", { "x-webhook-signature": netlifySignature(body) }, body);
    assertRefused(verdict, 401, /no X-Hub-Signature-256 header/);
  });

  it("answers ping with pong, a failed deployment and other events with ignored", async () => {
    const ping = JSON.stringify({ zen: "Non-blocking is better than blocking.", hook_id: 9 });
    assertRefused(await receive("github", github(hubSignature256(ping), "ping"), ping), 200, /pong/);
    const failure = deploymentStatusBody({ state: "failure" });
    assertRefused(
      await receive("github", github(hubSignature256(failure)), failure),
      200,
      /state is failure/,
    );
    const push = JSON.stringify({ ref: "refs/heads/main" });
    assertRefused(await receive("github", github(hubSignature256(push), "push"), push), 200, /event push/);
  });

  it("starts a run for any correctly signed body on the generic webhook, and refuses forgeries", async () => {
    const anything = "deployed at 12:00";
    const headers = { "x-hub-signature-256": hubSignature256(anything) };
    assert.equal((await receive("generic", headers, anything)).start, true);
    assert.equal((await receive("generic", headers, `${anything}!`)).start, false);
    assert.equal((await receive("generic", {}, anything)).start, false);
    const unset = await receiveWebhook(
      { provider: "generic", headers, rawBody: Buffer.from(anything) },
      { secret: undefined, contexts: ["production"] },
    );
    assertRefused(unset, 401, /WEBHOOK_SECRET is not set/);
  });
});

describe("the generic webhook's X-Webhook-Timestamp: signed with the body, five minutes either way", () => {
  const body = "deployed at 12:00";
  const NOW = 1_764_300_000_000;
  const at = (seconds: number) => String(NOW / 1000 + seconds);
  /** X-Hub-Signature-256 over "<timestamp>.<body>", as a sender that sends the timestamp signs. */
  const stamped = (timestamp: string, signed = timestamp) => ({
    "x-webhook-timestamp": timestamp,
    "x-hub-signature-256": `sha256=${hmacWith("sha256", SECRET)(`${signed}.${body}`).toString("hex")}`,
  });
  const receiveAt = (provider: WebhookProvider, headers: IncomingHttpHeaders, sent = body) =>
    receiveWebhook({ provider, headers, rawBody: Buffer.from(sent) }, { ...settings, now: () => NOW });

  it("starts a run within five minutes of the server's clock, and keeps the timestamp in its delivery", async () => {
    for (const seconds of [0, 300, -300]) {
      const verdict = await receiveAt("generic", stamped(at(seconds)));
      assert.deepEqual(verdict, {
        start: true,
        summary: "generic webhook",
        deliveryKeys: [`generic:${at(seconds)}:${sha256Hex(body)}`],
      });
    }
  });

  it("refuses a signed timestamp more than five minutes away as a replay", async () => {
    for (const seconds of [301, -301, -86_400])
      assertRefused(
        await receiveAt("generic", stamped(at(seconds))),
        401,
        new RegExp(
          `is ${Math.abs(seconds)} seconds from the server's clock; more than 300 apart is refused as a replay`,
        ),
      );
  });

  it("refuses an old request replayed under a new timestamp", async () => {
    assertRefused(
      await receiveAt("generic", stamped(at(0), at(-3600))),
      401,
      /sign the timestamp, a dot and the body/,
    );
  });

  it("refuses a timestamp that is not one Unix time in seconds, before the signature", async () => {
    const bodyOnly = hubSignature256(body);
    for (const timestamp of ["abc", "", ` ${at(0)}`, `${at(0)}x`, "1234567890123", ["1", "2"], [at(0)]])
      assertRefused(
        await receiveAt("generic", { "x-webhook-timestamp": timestamp, "x-hub-signature-256": bodyOnly }),
        401,
        /X-Webhook-Timestamp must be given once, as the Unix time in seconds/,
      );
  });

  it("reads no timestamp on the GitHub route, whose signature never covers one", async () => {
    const deployment = deploymentStatusBody();
    const verdict = await receiveAt(
      "github",
      {
        "x-webhook-timestamp": "not a time",
        "x-hub-signature-256": hubSignature256(deployment),
        "x-github-event": "deployment_status",
      },
      deployment,
    );
    assert.equal(verdict.start, true);
  });
});
