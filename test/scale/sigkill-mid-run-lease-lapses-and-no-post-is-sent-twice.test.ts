// A server process killed with SIGKILL in the middle of a batch — mid-send: both targets have
// created the fourth post but their answers never arrived — leaves a lease that lapses after
// leaseMs, so a batch on another instance goes ahead. The sends it left `sending` are resolved as
// the core does: Mastodon, which honours the Idempotency-Key, gets it again with the same key and
// answers with the status it already has; the Micropub site, which knows no key, is marked
// "unknown: check the target" and never sent it again. No post ever appears twice anywhere.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
// The two waits left here are for time on the PostgreSQL server's clock, which is what is tested:
// a killed process's lease lapses and its claims go stale by that clock, in two real processes.
import { setTimeout as sleep } from "node:timers/promises";
import type { ChildServer } from "../helpers/child-server.ts";
import {
  type BatchBody,
  createPosts,
  ENDPOINT_PACKAGE,
  MASTODON_PACKAGE,
  type Sandbox,
  type SharedDatabase,
  sharedPostgres,
  startCluster,
  startSandbox,
  statusesByText,
  statusPostsByKey,
  stopAll,
  syndicate,
  until,
} from "./cluster.ts";
import { type HangingMicropubTarget, startHangingMicropubTarget } from "./hanging-micropub-target.ts";

const MICROPUB_PACKAGE = "@possekit/syndicator-micropub";
const LEASE_MS = 2_000;
const TARGET_TIMEOUT_MS = 3_000;
const POSTS = 10;
/** The post in flight when the process dies (1-based). */
const INTERRUPTED = 4;

describe("an instance killed with SIGKILL mid-run", () => {
  let database: SharedDatabase | undefined;
  let sandbox: Sandbox | undefined;
  let site: HangingMicropubTarget | undefined;
  let instances: ChildServer[] | undefined;

  before(async () => {
    database = await sharedPostgres();
    // 100 ms per status: a batch of ten lasts over a second, so the kill lands mid-run.
    sandbox = await startSandbox({ latencyMs: 100 });
    site = await startHangingMicropubTarget(randomBytes(12).toString("hex"));
    instances = await startCluster({
      count: 2,
      env: { DATABASE_URL: database.url, MICROPUB_ACCESS_TOKEN: site.token },
      sandbox,
      endpoint: { leaseMs: LEASE_MS, targetTimeoutMs: TARGET_TIMEOUT_MS },
      config: {
        plugins: [ENDPOINT_PACKAGE, MASTODON_PACKAGE, MICROPUB_PACKAGE],
        [MICROPUB_PACKAGE]: { micropubEndpoint: site.url, name: "Other site" },
      },
    });
  });

  after(async () => {
    await stopAll(instances, sandbox, database);
    await site?.close();
  });

  it("frees the endpoint after its lease; the interrupted post is resent with its key or left unknown, never duplicated", async () => {
    const [doomed, survivor] = instances as [ChildServer, ChildServer];
    const mastodon = sandbox as Sandbox;
    const other = site as HangingMicropubTarget;
    const token = await survivor.token("create update");
    const posts = await createPosts(survivor, token, POSTS, [mastodon.uid, other.url], "Crash");
    const interruptedUrl = posts[INTERRUPTED - 1] as string;

    // The fourth post is created on both targets, but neither answer comes back.
    other.holdAnswerOfCreate(INTERRUPTED);
    const batch = syndicate(doomed, token).catch((error: unknown) => error);
    await until("three posts are on Mastodon", () => mastodon.mastodon.statuses.length >= INTERRUPTED - 1);
    // Mastodon answers each request after 100 ms, so the fourth is still on its way in.
    mastodon.mastodon.setBehaviour({ hangMs: Number.POSITIVE_INFINITY, hangPhase: "after" });
    await until(
      "the fourth post exists on both targets, unanswered",
      () => mastodon.mastodon.statuses.length >= INTERRUPTED && other.created.length >= INTERRUPTED,
    );
    const interrupted = mastodon.mastodon.statuses[INTERRUPTED - 1];
    assert.ok(interrupted?.idempotencyKey, "the interrupted status was posted with an Idempotency-Key");

    const exit = await doomed.kill("SIGKILL");
    const killedAt = Date.now();
    mastodon.mastodon.clearBehaviour();
    assert.equal(exit.signal, "SIGKILL");
    assert.ok((await batch) instanceof Error, "the client of the killed instance lost its connection");
    assert.equal(mastodon.mastodon.statuses.length, INTERRUPTED, "nothing was sent after the kill");

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
    // The lease lapses at most leaseMs after the kill (its last renewal was before it); the rest is
    // the polling, slower on a busy machine. The default lease (30 s) would be far beyond this.
    assert.ok(recoveryMs <= LEASE_MS + 2_500, `recovery took ${recoveryMs} ms`);
    const firstRun = (await recovered.json()) as BatchBody;
    for (const url of posts.slice(INTERRUPTED)) {
      const result = firstRun.results.find((r) => r.url === url);
      assert.equal(result?.status, "syndicated", `${url} was syndicated by the run after the crash`);
    }

    // The interrupted sends are resolved once their claims are older than lease + target timeout.
    await sleep(Math.max(0, killedAt + LEASE_MS + TARGET_TIMEOUT_MS + 300 - Date.now()));
    let lastRun: BatchBody | undefined;
    for (let runs = 0; ; runs += 1) {
      assert.ok(runs < 5, "batches kept sending");
      const response = await syndicate(survivor, token);
      assert.equal(response.status, 200);
      lastRun = (await response.json()) as BatchBody;
      const sentSomething = lastRun.results.some((r) => r.targets.some((t) => t.status === "syndicated"));
      if (!sentSomething) break;
    }

    // Mastodon: one status per post; the interrupted one was posted twice with one key.
    assert.equal(mastodon.mastodon.statuses.length, POSTS, "one status per post");
    for (let i = 1; i <= POSTS; i += 1)
      assert.equal(statusesByText(mastodon).get(`Crash ${i} of ${POSTS}`), 1, `Crash ${i} on Mastodon`);
    const posted = statusPostsByKey(mastodon);
    assert.equal(
      posted.get(interrupted.idempotencyKey),
      2,
      "the interrupted status was sent again with its key",
    );
    assert.equal([...posted.values()].filter((count) => count !== 1).length, 1, "every other post once");

    // The Micropub site: each post once; the interrupted one was not sent again and waits for the
    // user, who is told to check the target.
    assert.deepEqual(
      [...other.created].sort(),
      posts.map((_, i) => `Crash ${i + 1} of ${POSTS}`).sort(),
      "each post created once on the Micropub site",
    );
    const waiting = lastRun?.results.find((r) => r.url === interruptedUrl);
    const unknown = waiting?.targets.find((t) => t.uid === other.url);
    assert.equal(unknown?.status, "skipped");
    assert.equal(unknown?.error, "unknown: check the target");

    // Every post carries its Mastodon URL; all but the interrupted one their Micropub URL too.
    for (const [index, url] of posts.entries()) {
      const response = await fetch(`${survivor.url}/micropub?q=source&url=${encodeURIComponent(url)}`, {
        headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      });
      const { properties } = (await response.json()) as { properties: Record<string, unknown[]> };
      const status = mastodon.mastodon.statuses.find((s) => s.text === `Crash ${index + 1} of ${POSTS}`);
      const syndication = properties.syndication ?? [];
      assert.ok(syndication.includes(status?.url), `${url} has its Mastodon URL`);
      if (url === interruptedUrl) {
        assert.equal(syndication.length, 1);
        assert.deepEqual(properties["mp-syndicate-to"], [other.url], "it still names the Micropub site");
      } else {
        assert.equal(syndication.length, 2, `${url}: ${syndication}`);
        assert.equal(properties["mp-syndicate-to"], undefined, `${url} names no target any more`);
      }
    }
  });
});
