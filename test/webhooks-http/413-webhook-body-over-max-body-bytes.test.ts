// Decision 0012: the raw body of a webhook is read once and size-limited (the plug-in option
// webhook.maxBodyBytes): a larger body is answered 413, whether its length is declared or it comes
// chunked, and starts nothing even when it is correctly signed.
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
import { hubSignature256, netlifyDeployBody, netlifySignature, SECRET } from "../helpers/webhook-signers.ts";
import { recentRuns, sendWebhook } from "./webhook-requests.ts";

const LIMIT = 2_000;
const LARGE = netlifyDeployBody({ title: "x".repeat(LIMIT) });

/** A body sent in chunks without Content-Length, as a streaming sender does. */
function chunked(text: string): RequestInit {
  const bytes = new TextEncoder().encode(text);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let offset = 0; offset < bytes.length; offset += 500)
        controller.enqueue(bytes.slice(offset, offset + 500));
      controller.close();
    },
  });
  // duplex is required by fetch for a streamed request body; RequestInit's type lacks it.
  return { body, duplex: "half" } as RequestInit;
}

for (const engine of engines) {
  describe(`webhook bodies over webhook.maxBodyBytes are refused (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    before(async () => {
      target = await startTarget();
      app = await startEndpointServer({
        engine,
        targets: [target],
        env: { WEBHOOK_SECRET: SECRET },
        pluginOptions: { webhook: { maxBodyBytes: LIMIT } },
      });
      await app.createPost({ content: "awaiting a deploy", targets: [target.uid] });
    });
    after(async () => {
      await app?.close();
      await closeAll(target);
    });

    for (const [path, headers] of [
      ["/syndicate", { "x-webhook-signature": netlifySignature(LARGE) }],
      ["/syndicate/webhook/netlify", { "x-webhook-signature": netlifySignature(LARGE) }],
      [
        "/syndicate/webhook/github",
        { "x-hub-signature-256": hubSignature256(LARGE), "x-github-event": "deployment_status" },
      ],
      ["/syndicate/webhook", { "x-hub-signature-256": hubSignature256(LARGE) }],
    ] as const) {
      it(`answers 413 to a signed body over the limit at ${path}`, async () => {
        assert.ok(app && target);
        const answer = await sendWebhook(app.url, path, LARGE, headers);
        assert.equal(answer.status, 413);
        assert.equal(answer.body.error, "payload_too_large");
        assert.match(String(answer.body.error_description), new RegExp(`limit of ${LIMIT} bytes`));
        assert.equal(target.sandbox.requests.length, 0);
      });
    }

    it("answers 413 to a chunked body that grows over the limit", async () => {
      assert.ok(app && target);
      const answer = await sendWebhook(
        app.url,
        "/syndicate",
        "",
        { "x-webhook-signature": netlifySignature(LARGE) },
        chunked(LARGE),
      );
      assert.equal(answer.status, 413);
      assert.equal(answer.body.error, "payload_too_large");
      assert.equal(target.sandbox.requests.length, 0);
      assert.equal((await recentRuns(app.server)).length, 0);
    });

    it("still runs on a signed body within the limit", async () => {
      assert.ok(app && target);
      const body = netlifyDeployBody();
      assert.ok(Buffer.byteLength(body) <= LIMIT);
      const answer = await sendWebhook(app.url, "/syndicate", body, {
        "x-webhook-signature": netlifySignature(body),
      });
      assert.equal(answer.status, 200);
      assert.equal(target.sandbox.statuses.length, 1);
    });
  });
}
