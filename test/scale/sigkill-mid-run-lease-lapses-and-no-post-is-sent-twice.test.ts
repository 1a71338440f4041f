// A server process killed with SIGKILL in the middle of a batch (mid-send: Mastodon has created the
// status but the answer never arrived) leaves a lease that lapses after leaseMs, so a batch on
// another instance goes ahead; the send it left `sending` is resolved as the core does — sent again
// with the same Idempotency-Key, which Mastodon honours — so no post ever appears twice.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ChildServer } from "../helpers/child-server.ts";
import {
  type BatchBody,
  createPosts,
  type Sandbox,
  sharedPostgres,
  sleep,
  startCluster,
  startSandbox,
  statusesByText,
  statusPostsByKey,
  stopAll,
  syndicate,
  until,
} from "./cluster.ts";

const LEASE_MS = 2_000;
const TARGET_TIMEOUT_MS = 3_000;
const POSTS = 10;

describe("an instance killed with SIGKILL mid-run", () => {
  let database: { url: string; drop(): Promise<void> } | undefined;
  let sandbox: Sandbox | undefined;
  let instances: ChildServer[] | undefined;

  before(async () => {
    database = await sharedPostgres();
    // 100 ms per status: a batch of ten lasts a second, so the kill lands mid-run.
    sandbox = await startSandbox({ latencyMs: 100 });
    instances = await startCluster({
      count: 2,
      env: { DATABASE_URL: database.url },
      sandbox,
      endpoint: { leaseMs: LEASE_MS, targetTimeoutMs: TARGET_TIMEOUT_MS },
    });
  });

  after(() => stopAll(instances, sandbox, database));

  it("frees the endpoint after its lease, and the interrupted post is resent with its key, never duplicated", async () => {
    const [doomed, survivor] = instances as [ChildServer, ChildServer];
    const target = sandbox as Sandbox;
    const token = await survivor.token("create update");
    const posts = await createPosts(survivor, token, POSTS, [target.uid], "Crash");

    // The fourth status is created, but its answer is held back until the caller is gone.
    const batch = syndicate(doomed, token).catch((error: unknown) => error);
    await until("three posts are on Mastodon", () => target.mastodon.statuses.length >= 3);
    target.mastodon.setBehaviour({ hangMs: Number.POSITIVE_INFINITY, hangPhase: "after" });
    await until("the fourth status exists, unanswered", () => target.mastodon.statuses.length >= 4);
    const interrupted = target.mastodon.statuses[3];
    assert.ok(interrupted?.idempotencyKey, "the interrupted status was posted with an Idempotency-Key");

    const exit = await doomed.kill("SIGKILL");
    const killedAt = Date.now();
    target.mastodon.clearBehaviour();
    assert.equal(exit.signal, "SIGKILL");
    assert.ok((await batch) instanceof Error, "the client of the killed instance lost its connection");
    assert.equal(target.mastodon.statuses.length, 4, "nothing was sent after the kill");

    // The dead run's lease still stands for a moment: the survivor says a run is in progress.
    const refused = await syndicate(survivor, token);
    assert.equal(refused.status, 409);
    assert.equal(((await refused.json()) as { error: string }).error, "syndication_in_progress");
    const retryAfter = Number(refused.headers.get("retry-after"));
    assert.ok(retryAfter >= 1 && retryAfter <= LEASE_MS / 1000, `Retry-After ${retryAfter}`);

    // Then the lease lapses and a batch on the survivor goes ahead.
    let recovered: Response | undefined;
    let recoveryMs = 0;
    while (!recovered) {
      // Measured to when the request that got the run was sent (its answer comes after the run).
      const sentAt = Date.now();
      const response = await syndicate(survivor, token);
      if (response.status === 200) {
        recovered = response;
        recoveryMs = sentAt - killedAt;
      } else {
        assert.equal(response.status, 409, `while waiting for the lease: ${response.status}`);
        await response.body?.cancel();
        await sleep(50);
      }
    }
    console.log(
      `# crash recovery: a batch went ahead ${recoveryMs} ms after the SIGKILL (leaseMs ${LEASE_MS})`,
    );
    assert.ok(recoveryMs <= LEASE_MS + 1_000, `recovery took ${recoveryMs} ms`);
    const firstRun = (await recovered.json()) as BatchBody;
    const later = posts.slice(4);
    for (const url of later) {
      const result = firstRun.results.find((r) => r.url === url);
      assert.equal(result?.status, "syndicated", `${url} was syndicated by the run after the crash`);
    }

    // The interrupted send is resolved once its claim is older than lease + target timeout: resent
    // with the same key, so Mastodon answers with the status it already has.
    await sleep(Math.max(0, killedAt + LEASE_MS + TARGET_TIMEOUT_MS + 300 - Date.now()));
    for (let runs = 0; ; runs += 1) {
      assert.ok(runs < 5, "batches kept finding work");
      const response = await syndicate(survivor, token);
      assert.equal(response.status, 200);
      const body = (await response.json()) as BatchBody;
      if (body.summary.posts === 0) break;
      assert.equal(body.summary.failed, 0, JSON.stringify(body.results));
    }

    // Never a duplicate: one status per post, and the interrupted one was posted twice with one key.
    assert.equal(target.mastodon.statuses.length, POSTS, "one status per post");
    for (let i = 1; i <= POSTS; i += 1) assert.equal(statusesByText(target).get(`Crash ${i} of ${POSTS}`), 1);
    const posted = statusPostsByKey(target);
    assert.equal(
      posted.get(interrupted.idempotencyKey),
      2,
      "the interrupted status was sent again with its key",
    );
    assert.equal(
      [...posted.values()].filter((count) => count !== 1).length,
      1,
      "every other post was sent exactly once",
    );

    // Every post carries its one Mastodon URL.
    for (const [index, url] of posts.entries()) {
      const response = await fetch(`${survivor.url}/micropub?q=source&url=${encodeURIComponent(url)}`, {
        headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      });
      const source = (await response.json()) as { properties: Record<string, unknown[]> };
      const status = target.mastodon.statuses.find((s) => s.text.startsWith(`Crash ${index + 1} of`));
      assert.deepEqual(source.properties.syndication, [status?.url], `${url}'s syndication`);
      assert.equal(source.properties["mp-syndicate-to"], undefined, `${url} names no target any more`);
    }
  });
});
