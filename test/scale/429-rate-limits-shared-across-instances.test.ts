// Two instances behind one address (as behind a load balancer): with application.rateLimit.store
// "database" they count every client against one budget, so spreading requests over instances does
// not multiply the limit; with the default "memory" each instance counts on its own.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ChildServer } from "../helpers/child-server.ts";
import { type SharedDatabase, sharedPostgres, startCluster, stopAll, syndicate } from "./cluster.ts";

const LIMIT = 10;

/** GET /syndicate/status with a token: an authenticated route, counted per credential. */
async function statusPage(server: ChildServer, token: string): Promise<number> {
  const response = await fetch(`${server.url}/syndicate/status`, {
    headers: { authorization: `Bearer ${token}`, accept: "application/json" },
  });
  await response.body?.cancel();
  return response.status;
}

function count(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

describe('rate limits with store "database" on two instances', () => {
  let shared: SharedDatabase | undefined;
  let instances: ChildServer[] | undefined;
  let token = "";

  before(async () => {
    shared = await sharedPostgres();
    instances = await startCluster({
      count: 2,
      env: { DATABASE_URL: shared.url },
      config: {
        application: {
          rateLimit: { store: "database", authenticated: LIMIT, public: 3, signIn: 4, windowMs: 60_000 },
        },
      },
    });
    token = await (instances[0] as ChildServer).token("create update");
  });

  after(() => stopAll(instances, undefined, shared));

  it("shares one budget: of requests spread over both, only the limit passes", async () => {
    const [first, second] = instances as [ChildServer, ChildServer];
    const statuses: number[] = [];
    for (let i = 0; i < 2 * LIMIT; i += 1)
      statuses.push(await statusPage(i % 2 === 0 ? first : second, token));
    assert.deepEqual(
      statuses.slice(0, LIMIT),
      Array(LIMIT).fill(200),
      "the first ten pass, on either instance",
    );
    assert.deepEqual(statuses.slice(LIMIT), Array(LIMIT).fill(429), "then both refuse");

    // Each instance says how much of the shared budget is left.
    const refused = await fetch(`${first.url}/syndicate/status`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get("retry-after")) > 0);
    assert.match(refused.headers.get("ratelimit") ?? "", /r=0/);
  });

  it("counts sign-in attempts together, concurrent ones included", async () => {
    const [first, second] = instances as [ChildServer, ChildServer];
    const attempts = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        fetch(`${(i % 2 === 0 ? first : second).url}/session/login`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
          body: new URLSearchParams({ password: "wrong password" }),
        }).then(async (response) => {
          await response.body?.cancel();
          return response.status;
        }),
      ),
    );
    assert.deepEqual(count(attempts), { 401: 4, 429: 8 }, "four wrong passwords in all, then 429");
  });

  it("never spends the public budget on requests the webhook routes pass on", async () => {
    const [first, second] = instances as [ChildServer, ChildServer];
    // POST {mountPath} without a webhook signature goes on to the authenticated endpoint; it must not
    // spend the public budget on either instance. This token's budget is spent, so these end in 429
    // — from the per-credential limiter.
    for (let i = 0; i < 6; i += 1) {
      const response = await syndicate(i % 2 === 0 ? first : second, token);
      assert.equal(response.status, 429);
      await response.body?.cancel();
    }
    // The public budget is whole: three signed webhooks are heard (here refused 401 for want of
    // WEBHOOK_SECRET, which is not a 429); the refusals count, shared by both instances.
    for (let i = 0; i < 3; i += 1) {
      const response = await fetch(`${(i % 2 === 0 ? first : second).url}/syndicate/webhook`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-hub-signature-256": `sha256=${"0".repeat(64)}` },
        body: "{}",
      });
      assert.equal(response.status, 401, `webhook ${i + 1}`);
      await response.body?.cancel();
    }
    const fourth = await fetch(`${second.url}/syndicate/webhook`, { method: "POST", body: "{}" });
    assert.equal(fourth.status, 429, "the fourth public request in the window is refused");
  });
});

describe('rate limits with the default store "memory" on two instances', () => {
  let shared: SharedDatabase | undefined;
  let instances: ChildServer[] | undefined;
  let token = "";

  before(async () => {
    shared = await sharedPostgres();
    instances = await startCluster({
      count: 2,
      env: { DATABASE_URL: shared.url },
      config: { application: { rateLimit: { authenticated: LIMIT } } },
    });
    token = await (instances[0] as ChildServer).token("create update");
  });

  after(() => stopAll(instances, undefined, shared));

  it("counts on each instance apart", async () => {
    const [first, second] = instances as [ChildServer, ChildServer];
    const statuses: number[] = [];
    for (let i = 0; i < 2 * LIMIT; i += 1)
      statuses.push(await statusPage(i % 2 === 0 ? first : second, token));
    assert.deepEqual(statuses, Array(2 * LIMIT).fill(200), "each instance lets its own ten through");
    assert.equal(await statusPage(first, token), 429);
    assert.equal(await statusPage(second, token), 429);
  });
});
