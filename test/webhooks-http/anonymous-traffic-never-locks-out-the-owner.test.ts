// Decision 0006: strangers at one address (behind a reverse proxy every client shares one)
// flood the webhook path and the Micropub endpoint past every limit. The owner is untouched: the
// signed-in page, a script's token and a genuine signed webhook all still work, because
// authenticated requests count per credential and a request that proves its sender is never
// counted against unsigned traffic.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  closeAll,
  type EndpointServer,
  startEndpointServer,
  startTarget,
  type Target,
} from "../endpoint/endpoint-server.ts";
import { pgliteEngine } from "../helpers/databases.ts";
import { netlifyDeployBody, netlifySignature, SECRET } from "../helpers/webhook-signers.ts";
import { sendWebhook } from "./webhook-requests.ts";

const PUBLIC = 5;

describe("anonymous traffic never locks out the owner", () => {
  let target: Target | undefined;
  let app: EndpointServer | undefined;
  before(async () => {
    target = await startTarget();
    app = await startEndpointServer({
      engine: pgliteEngine,
      targets: [target],
      env: { WEBHOOK_SECRET: SECRET },
      config: { application: { rateLimit: { public: PUBLIC, authenticated: 100 } } },
    });
  });
  after(async () => {
    await app?.close();
    await closeAll(target);
  });

  it("refuses the strangers, and still serves the page, the token and the signed webhook", async () => {
    assert.ok(app && target);
    const session = await app.server.signIn();
    const strangers: number[] = [];
    for (let i = 0; i < 3 * PUBLIC; i++) {
      const forged = await sendWebhook(app.url, "/syndicate", netlifyDeployBody(), {
        "x-webhook-signature": netlifySignature(netlifyDeployBody(), "a guess at the secret"),
      });
      strangers.push(forged.status);
      const micropub = await fetch(`${app.url}/micropub?q=config`, {
        headers: { accept: "application/json" },
      });
      strangers.push(micropub.status);
      await micropub.body?.cancel();
    }
    assert.ok(strangers.filter((status) => status === 429).length >= 2 * PUBLIC, strangers.join(" "));
    assert.deepEqual(new Set(strangers), new Set([401, 429]));

    const page = await fetch(`${app.url}/syndicate`, {
      headers: { cookie: session.cookie, accept: "text/html" },
    });
    assert.equal(page.status, 200, "the signed-in page");
    await page.body?.cancel();

    await app.createPost({ content: "still syndicated", targets: [target.uid] });
    const script = await app.syndicate();
    assert.equal(script.status, 200, "a script with its token");
    await script.body?.cancel();

    const body = netlifyDeployBody({ id: "deploy-after-the-flood" });
    const genuine = await sendWebhook(app.url, "/syndicate", body, {
      "x-webhook-signature": netlifySignature(body),
    });
    assert.equal(genuine.status, 200, `the signed webhook: ${JSON.stringify(genuine.body)}`);
    assert.equal(genuine.headers.get("ratelimit"), null, "not counted against the address");
  });
});
