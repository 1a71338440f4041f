// Decision 0012: a captured signed webhook used to work forever. Each attack here sends a
// genuine, correctly signed delivery again, as someone who copied it from a log would: it is
// answered 200 {"ignored": "replayed"} and starts no run. The signature is verified first (a replay
// with a broken signature is 401), and ids are kept for a day, then pruned.
import assert from "node:assert/strict";
import { createHmac, randomUUID } from "node:crypto";
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
import {
  deploymentStatusBody,
  hubSignature256,
  netlifyDeployBody,
  netlifySignature,
  SECRET,
} from "../helpers/webhook-signers.ts";
import { recentRuns, sendWebhook, type WebhookAnswer } from "./webhook-requests.ts";

/** The generic webhook's signature with X-Webhook-Timestamp: HMAC of "<timestamp>.<body>". */
const timestampSignature = (timestamp: string, body: string) =>
  `sha256=${createHmac("sha256", SECRET).update(`${timestamp}.${body}`).digest("hex")}`;

const nowSeconds = () => String(Math.floor(Date.now() / 1000));

for (const engine of engines) {
  describe(`replayed webhooks start nothing (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    before(async () => {
      ({ target, app } = await startWithOneTarget(engine, { env: { WEBHOOK_SECRET: SECRET } }));
    });
    after(() => closeServerThenTargets(app, target));

    /** A post waiting for the next run; returns its URL. */
    const awaiting = (content: string) => {
      assert.ok(app && target);
      return app.createPost({ content, targets: [target.uid] });
    };

    const assertRan = (answer: WebhookAnswer, post: string) => {
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(
        (answer.body.results as PostResult[]).map((result) => [result.url, result.status]),
        [[post, "syndicated"]],
      );
    };

    /** Sends `send` again and checks that it is a replay: answered, no run, nothing sent. */
    const assertReplayed = async (send: () => Promise<WebhookAnswer>, waiting: string) => {
      assert.ok(app && target);
      const runsBefore = (await recentRuns(app.server)).length;
      const sentBefore = texts(target).length;
      const answer = await send();
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body, { ignored: "replayed" });
      assert.equal((await recentRuns(app.server)).length, runsBefore, "no run was started");
      assert.equal(texts(target).length, sentBefore, "nothing was sent");
      assert.notEqual((await app.source(waiting))["mp-syndicate-to"], undefined, "the post still waits");
    };

    it("GitHub: the same delivery sent again, or with another X-GitHub-Delivery, is a replay", async () => {
      assert.ok(app);
      const body = deploymentStatusBody({ id: 101 });
      const delivery = randomUUID();
      const send = (id = delivery) =>
        sendWebhook(app?.url ?? "", "/syndicate/webhook/github", body, {
          "x-github-event": "deployment_status",
          "x-github-delivery": id,
          "x-hub-signature-256": hubSignature256(body),
        });
      const first = await awaiting("before the GitHub deploy");
      assertRan(await send(), first);
      const waiting = await awaiting("after the GitHub deploy");
      await assertReplayed(() => send(), waiting);
      // The delivery header is not signed: a new one does not make the captured body new.
      await assertReplayed(() => send(randomUUID()), waiting);
      // A new deployment (a new body and delivery) runs.
      const next = deploymentStatusBody({ id: 102 });
      assertRan(
        await sendWebhook(app.url, "/syndicate/webhook/github", next, {
          "x-github-event": "deployment_status",
          "x-github-delivery": randomUUID(),
          "x-hub-signature-256": hubSignature256(next),
        }),
        waiting,
      );
    });

    it("Netlify: the same deploy id and state sent again is a replay", async () => {
      assert.ok(app);
      const body = netlifyDeployBody({ id: "replayed-deploy" });
      const send = () =>
        sendWebhook(app?.url ?? "", "/syndicate", body, { "x-webhook-signature": netlifySignature(body) });
      const first = await awaiting("before the Netlify deploy");
      assertRan(await send(), first);
      const waiting = await awaiting("after the Netlify deploy");
      await assertReplayed(send, waiting);
      await assertReplayed(
        () =>
          sendWebhook(app?.url ?? "", "/syndicate/webhook/netlify", body, {
            "x-webhook-signature": netlifySignature(body),
          }),
        waiting,
      );
      // The same deploy in another state is another notification (here: ignored, not replayed).
      const building = netlifyDeployBody({ id: "replayed-deploy", state: "building" });
      const answer = await sendWebhook(app.url, "/syndicate", building, {
        "x-webhook-signature": netlifySignature(building),
      });
      assert.equal(answer.body.status, "ignored");
      assertRan(
        await sendWebhook(app.url, "/syndicate", netlifyDeployBody({ id: "next-deploy" }), {
          "x-webhook-signature": netlifySignature(netlifyDeployBody({ id: "next-deploy" })),
        }),
        waiting,
      );
    });

    it("generic: the same signed body sent again is a replay; a signed new X-Webhook-Timestamp is not", async () => {
      assert.ok(app);
      const body = JSON.stringify({ event: "deployed", commit: "abc123" });
      const send = () =>
        sendWebhook(app?.url ?? "", "/syndicate/webhook", body, {
          "x-hub-signature-256": hubSignature256(body),
        });
      const first = await awaiting("before the script's deploy");
      assertRan(await send(), first);
      const waiting = await awaiting("after the script's deploy");
      await assertReplayed(send, waiting);

      // A sender whose body never changes signs a timestamp with it: each new time is a new delivery.
      const stamp = nowSeconds();
      const stamped = () =>
        sendWebhook(app?.url ?? "", "/syndicate/webhook", body, {
          "x-webhook-timestamp": stamp,
          "x-hub-signature-256": timestampSignature(stamp, body),
        });
      assertRan(await stamped(), waiting);
      const later = await awaiting("after the stamped deploy");
      await assertReplayed(stamped, later);
    });

    it("401 a timestamp more than 5 minutes away, or one the signature does not cover", async () => {
      assert.ok(app && target);
      const body = JSON.stringify({ event: "deployed", commit: "def456" });
      const old = String(Math.floor(Date.now() / 1000) - 6 * 60);
      const stale = await sendWebhook(app.url, "/syndicate/webhook", body, {
        "x-webhook-timestamp": old,
        "x-hub-signature-256": timestampSignature(old, body),
      });
      assert.equal(stale.status, 401);
      assert.match(
        String(stale.body.error_description),
        /X-Webhook-Timestamp is \d+ seconds from the server's clock/,
      );
      // A captured body-only signature with a fresh timestamp added by someone else.
      const unsigned = await sendWebhook(app.url, "/syndicate/webhook", body, {
        "x-webhook-timestamp": nowSeconds(),
        "x-hub-signature-256": hubSignature256(body),
      });
      assert.equal(unsigned.status, 401);
      assert.match(String(unsigned.body.error_description), /sign the timestamp, a dot and the body/);
    });

    it("verifies the signature before the replay: a replay with a broken signature is 401", async () => {
      assert.ok(app);
      const body = JSON.stringify({ event: "deployed", commit: "verify-first" });
      const good = await sendWebhook(app.url, "/syndicate/webhook", body, {
        "x-hub-signature-256": hubSignature256(body),
      });
      assert.equal(good.status, 200);
      const forged = await sendWebhook(app.url, "/syndicate/webhook", body, {
        "x-hub-signature-256": hubSignature256(body, "not-the-secret-at-all-0000"),
      });
      assert.equal(forged.status, 401);
      assert.equal(forged.body.error, "unauthorized");
    });

    it("forgets a delivery after a day: an id older than that is pruned and counts as new", async () => {
      assert.ok(app);
      const database = app.server.host.database;
      assert.ok(database);
      const body = JSON.stringify({ event: "deployed", commit: "a-day-ago" });
      const send = () =>
        sendWebhook(app?.url ?? "", "/syndicate/webhook", body, {
          "x-hub-signature-256": hubSignature256(body),
        });
      const first = await awaiting("before yesterday's deploy");
      assertRan(await send(), first);
      const waiting = await awaiting("after yesterday's deploy");
      await assertReplayed(send, waiting);
      const count = async () =>
        Number(
          (await database.query<{ n: string }>("SELECT count(*)::text AS n FROM webhook_deliveries")).rows[0]
            ?.n,
        );
      const before = await count();
      // A day and an hour pass for every delivery seen so far.
      await database.query("UPDATE webhook_deliveries SET seen_at = seen_at - interval '25 hours'");
      assertRan(await send(), waiting);
      assert.equal(await count(), 1, `the ${before} expired ids were pruned; only the new delivery is kept`);
    });
  });
}
