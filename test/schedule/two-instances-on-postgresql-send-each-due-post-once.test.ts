// Decision 0014: two server processes on one PostgreSQL database, both scheduling. Posts created on
// either (each wakes only its own scheduler; the other finds them at its next wake-up) are all
// sent by scheduled runs under the shared lease, each exactly once.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ChildServer } from "../helpers/child-server.ts";
import { healthOf } from "../helpers/health.ts";
import {
  createPost,
  type Sandbox,
  type SharedDatabase,
  settled,
  sharedPostgres,
  startCluster,
  startSandbox,
  statusesByText,
  statusPostsByKey,
  stopAll,
  until,
} from "../scale/cluster.ts";

const POSTS = 12;

describe("two instances on PostgreSQL, both scheduling", () => {
  let database: SharedDatabase | undefined;
  let sandbox: Sandbox | undefined;
  let instances: ChildServer[] | undefined;

  before(async () => {
    database = await sharedPostgres();
    sandbox = await startSandbox({ latencyMs: 30 });
    instances = await startCluster({
      count: 2,
      env: { DATABASE_URL: database.url },
      sandbox,
      endpoint: { leaseMs: 1_000, schedule: { enabled: true, whenLive: false, maxSleepMs: 300 } },
    });
  });

  after(async () => {
    await stopAll(instances, sandbox, database);
  });

  it("sends every post once, with no request but the creates", async () => {
    const [first, second] = instances as [ChildServer, ChildServer];
    const mastodon = sandbox as Sandbox;
    const tokens = [await first.token("create update"), await second.token("create update")];
    await Promise.all(
      Array.from({ length: POSTS }, (_, i) =>
        createPost(i % 2 === 0 ? first : second, tokens[i % 2] as string, {
          content: `Both ${i + 1} of ${POSTS}`,
          targets: [mastodon.uid],
        }),
      ),
    );
    await until("every post is on Mastodon", () => mastodon.mastodon.statuses.length >= POSTS);
    // Both schedulers find nothing left to do: nothing more will be sent.
    await settled([first, second]);
    assert.equal(mastodon.mastodon.statuses.length, POSTS);
    for (let i = 1; i <= POSTS; i += 1)
      assert.equal(statusesByText(mastodon).get(`Both ${i} of ${POSTS}`), 1, `Both ${i} once`);
    assert.ok(
      [...statusPostsByKey(mastodon).values()].every((count) => count === 1),
      "no key posted twice",
    );

    const health = (await healthOf(first)) as {
      "endpoint-syndicate": { scheduler: { state: string } };
    };
    assert.equal(health["endpoint-syndicate"].scheduler.state, "running");
  });
});
