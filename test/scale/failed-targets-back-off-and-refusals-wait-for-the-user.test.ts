// Retries across instances: a target that failed is retried by later runs on any instance, attempt n
// waiting min(2^n minutes, 1 day); a permanent refusal (422) is never retried by a later batch; the
// user's retry (the core's `retry`, as the page calls it, here from a third instance) sends it.
// Time is moved on by bringing next_attempt_at forward in the ledger, as the clock would.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import { openPostgres } from "../../src/server/database/postgres.ts";
import { createLogger } from "../../src/server/logger.ts";
import { createPostService } from "../../src/server/posts/post-service.ts";
import { Syndication } from "../../src/syndication/syndication.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { type ChildServer, SHARED_ME } from "../helpers/child-server.ts";
import {
  type BatchBody,
  createPost,
  type Sandbox,
  type SharedDatabase,
  sharedPostgres,
  startCluster,
  startSandbox,
  stopAll,
  syndicate,
} from "./cluster.ts";

interface LedgerRow {
  state: string;
  attempts: number;
  permanent: boolean;
  last_error: string | null;
  next_attempt_at: Date | null;
  /** next_attempt_at - updated_at, in minutes (both written by the same statement). */
  wait_minutes: number | null;
}

const MINUTE = 60_000;

describe("failed targets across instances", () => {
  let shared: SharedDatabase | undefined;
  let sandbox: Sandbox | undefined;
  let instances: ChildServer[] | undefined;
  /** The test's own connection: to read the ledger, and for the instance the user retries from. */
  let database: Database | undefined;
  let token = "";

  before(async () => {
    shared = await sharedPostgres();
    sandbox = await startSandbox();
    instances = await startCluster({ count: 2, env: { DATABASE_URL: shared.url }, sandbox });
    database = await openPostgres(process.env.TEST_DATABASE_URL as string, { schema: shared.schema });
    token = await (instances[0] as ChildServer).token("create update");
  });

  after(async () => {
    await database?.close();
    await stopAll(instances, sandbox, shared);
  });

  async function ledger(url: string): Promise<LedgerRow> {
    const result = await (database as Database).query<LedgerRow>(
      `SELECT t.state, t.attempts, t.permanent, t.last_error, t.next_attempt_at,
              (EXTRACT(EPOCH FROM (t.next_attempt_at - t.updated_at)) / 60)::float8 AS wait_minutes
         FROM syndication_targets t JOIN posts p ON p.id = t.post_id WHERE p.url = $1`,
      [url],
    );
    const row = result.rows[0];
    if (!row) throw new Error(`No ledger row for ${url}`);
    return row;
  }

  /** As if the wait had passed. */
  async function makeDue(url: string): Promise<void> {
    await (database as Database).query(
      "UPDATE syndication_targets SET next_attempt_at = now() WHERE post_id = (SELECT id FROM posts WHERE url = $1)",
      [url],
    );
  }

  async function batchOn(server: ChildServer): Promise<BatchBody> {
    const response = await syndicate(server, token);
    assert.equal(response.status, 200);
    return (await response.json()) as BatchBody;
  }

  const statusPosts = () =>
    (sandbox as Sandbox).mastodon.requests.filter((r) => r.method === "POST" && r.path === "/api/v1/statuses")
      .length;

  it("retries a failed target on later runs after min(2^n minutes, 1 day), then sends it", async () => {
    const [first, second] = instances as [ChildServer, ChildServer];
    const target = sandbox as Sandbox;
    const url = await createPost(first, token, { content: "Backoff", targets: [target.uid] });
    target.mastodon.setFailure(503, "Service Unavailable");

    for (const attempt of [1, 2, 3]) {
      const run = await batchOn(attempt % 2 === 1 ? first : second);
      assert.equal(run.results[0]?.targets[0]?.status, "failed");
      const row = await ledger(url);
      assert.equal(row.state, "failed");
      assert.equal(row.attempts, attempt);
      assert.equal(row.permanent, false);
      assert.equal(row.wait_minutes, 2 ** attempt, `attempt ${attempt} waits 2^${attempt} minutes`);

      // Before the wait is over, a batch on the other instance leaves it alone.
      const sentBefore = statusPosts();
      const waiting = await batchOn(attempt % 2 === 1 ? second : first);
      const skipped = waiting.results.find((r) => r.url === url)?.targets[0];
      assert.equal(skipped?.status, "skipped");
      assert.match(skipped?.error ?? "", /Service Unavailable/);
      assert.ok(
        skipped?.error?.includes(`next attempt after ${row.next_attempt_at?.toISOString()}`),
        skipped?.error,
      );
      assert.equal(statusPosts(), sentBefore, "nothing was sent during the wait");
      await makeDue(url);
    }

    // From the eleventh attempt on, 2^n minutes would pass a day: the wait stays at one day.
    await (database as Database).query(
      "UPDATE syndication_targets SET attempts = 10 WHERE post_id = (SELECT id FROM posts WHERE url = $1)",
      [url],
    );
    await batchOn(first);
    const capped = await ledger(url);
    assert.equal(capped.attempts, 11);
    assert.equal(capped.wait_minutes, 24 * 60, "2^11 minutes is capped at one day");
    assert.ok(
      Math.abs((capped.next_attempt_at?.getTime() ?? 0) - Date.now() - 24 * 60 * MINUTE) < MINUTE,
      "next attempt in a day",
    );

    // Once Mastodon is back and the wait is over, the next run sends it.
    target.mastodon.clearBehaviour();
    await makeDue(url);
    const sent = await batchOn(second);
    assert.equal(sent.results.find((r) => r.url === url)?.status, "syndicated");
    assert.equal((await ledger(url)).state, "syndicated");
    assert.equal(target.mastodon.statuses.filter((s) => s.text === "Backoff").length, 1);
  });

  it("never retries a 422 refusal automatically, and sends it when the user retries", async () => {
    const [first, second] = instances as [ChildServer, ChildServer];
    const target = sandbox as Sandbox;
    const url = await createPost(first, token, { content: "Refused", targets: [target.uid] });
    target.mastodon.setFailure(422, "Validation failed: Text character limit of 500 exceeded");
    const refused = await batchOn(second);
    const outcome = refused.results.find((r) => r.url === url)?.targets[0];
    assert.equal(outcome?.status, "failed");
    assert.match(outcome?.error ?? "", /character limit/);
    target.mastodon.clearBehaviour();

    const row = await ledger(url);
    assert.equal(row.state, "failed");
    assert.equal(row.permanent, true);
    assert.equal(row.next_attempt_at, null, "a permanent refusal has no next attempt");

    // Later batches, on either instance, report it and send nothing, however much time passes.
    const sentBefore = statusPosts();
    for (const server of [first, second]) {
      await makeDue(url);
      const later = await batchOn(server);
      const skipped = later.results.find((r) => r.url === url)?.targets[0];
      assert.equal(skipped?.status, "skipped");
      assert.match(skipped?.error ?? "", /refused permanently: retry it from the syndication page/);
    }
    assert.equal(statusPosts(), sentBefore, "no batch sent the refused post");
    assert.equal((await ledger(url)).attempts, 1);

    // The user retries it from the page of a third instance (the core's retry).
    const logger = createLogger("silent");
    const publication = {
      me: `${SHARED_ME}/`,
      postUrlPattern: "{me}notes/{slug}/",
      timezone: "UTC",
      name: "possekit",
    };
    const page = new Syndication({
      database: database as Database,
      posts: createPostService(database as Database, publication),
      syndicators: () => [
        new MastodonSyndicator({
          url: target.mastodon.url,
          user: target.mastodon.user,
          accessToken: target.mastodon.accessToken,
        }),
      ],
      publication,
      logger,
    });
    const retried = await page.runs.retry(url);
    await page.runs.shutdown();
    assert.equal(retried.status, "syndicated");
    assert.equal(retried.targets[0]?.status, "syndicated");
    const after = await ledger(url);
    assert.equal(after.state, "syndicated");
    assert.equal(after.attempts, 2);
    assert.equal(target.mastodon.statuses.filter((s) => s.text === "Refused").length, 1);

    // And no batch sends it again.
    const final = await batchOn(first);
    assert.equal(final.summary.posts, 0);
    assert.equal(target.mastodon.statuses.filter((s) => s.text === "Refused").length, 1);
  });
});
