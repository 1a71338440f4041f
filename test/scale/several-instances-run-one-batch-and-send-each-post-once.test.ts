// Three server processes on one PostgreSQL schema, as behind a load balancer: batch requests that
// reach different instances at once give exactly one run (200) and 409 syndication_in_progress for
// the others; single-post requests to other instances racing a batch send each (post, target) once.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ChildServer } from "../helpers/child-server.ts";
import {
  type BatchBody,
  createPosts,
  type Sandbox,
  sharedPostgres,
  startCluster,
  startSandbox,
  statusesByText,
  statusPostsByKey,
  stopAll,
  syndicate,
  until,
} from "./cluster.ts";

describe("three instances on one PostgreSQL", () => {
  let database: { url: string; drop(): Promise<void> } | undefined;
  let sandbox: Sandbox | undefined;
  let instances: ChildServer[] | undefined;
  let token = "";

  before(async () => {
    database = await sharedPostgres();
    // Each status takes 60 ms, so a batch of 15 posts lasts well over half a second.
    sandbox = await startSandbox({ latencyMs: 60 });
    instances = await startCluster({ count: 3, env: { DATABASE_URL: database.url }, sandbox });
    token = await (instances[0] as ChildServer).token("create update");
  });

  after(() => stopAll(instances, sandbox, database));

  it("answers concurrent batch requests to different instances with one run and 409 for the others", async () => {
    const servers = instances as ChildServer[];
    const target = sandbox as Sandbox;
    const posts = await createPosts(servers[0] as ChildServer, token, 15, [target.uid], "Batch race");

    // Two requests to each instance, all at once.
    const responses = await Promise.all([...servers, ...servers].map((server) => syndicate(server, token)));
    const statuses = responses.map((response) => response.status).sort();
    assert.deepEqual(statuses, [200, 409, 409, 409, 409, 409], `statuses: ${statuses}`);

    for (const response of responses) {
      if (response.status === 200) {
        const body = (await response.json()) as BatchBody;
        assert.equal(body.summary.posts, 15);
        assert.equal(body.summary.syndicated, 15);
        assert.deepEqual(
          body.results.map((result) => result.url),
          posts,
          "oldest first",
        );
      } else {
        assert.deepEqual(await response.json(), {
          error: "syndication_in_progress",
          error_description: "Syndication is already in progress",
        });
        const retryAfter = Number(response.headers.get("retry-after"));
        assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After: ${retryAfter}`);
      }
    }

    const sent = statusPostsByKey(target);
    assert.equal(target.mastodon.statuses.length, 15, "one status per post");
    assert.equal(sent.size, 15);
    assert.ok(
      [...sent.values()].every((count) => count === 1),
      "each post was sent once",
    );
  });

  it("sends each (post, target) once when single-post requests to two instances race a batch on a third", async () => {
    const [first, second, third] = instances as [ChildServer, ChildServer, ChildServer];
    const target = sandbox as Sandbox;
    const statusesBefore = target.mastodon.statuses.length;
    const keysBefore = new Set(statusPostsByKey(target).keys());
    const posts = await createPosts(first, token, 12, [target.uid], "Single race");

    // The batch starts on the first instance; as soon as its first status is being posted, every
    // post is also asked for, singly, on the other two instances — each post twice.
    const batch = syndicate(first, token);
    await until("the batch has begun posting", () => target.mastodon.statuses.length > statusesBefore);
    const singles = await Promise.all(
      posts.flatMap((url) => [syndicate(second, token, url), syndicate(third, token, url)]),
    );
    const batchResponse = await batch;

    assert.equal(batchResponse.status, 200);
    const batchBody = (await batchResponse.json()) as BatchBody;
    assert.ok(
      singles.every((response) => response.status === 200),
      "every single-post request succeeded",
    );
    const singleResults = await Promise.all(singles.map((response) => response.json()));

    // Every post reached Mastodon exactly once, whoever sent it: the ledger claim decided.
    const newKeys = [...statusPostsByKey(target).entries()].filter(([key]) => !keysBefore.has(key));
    assert.equal(newKeys.length, 12, "one Idempotency-Key per post");
    assert.ok(
      newKeys.every(([, count]) => count === 1),
      `POST /api/v1/statuses per key: ${newKeys.map(([, n]) => n)}`,
    );
    assert.equal(target.mastodon.statuses.length - statusesBefore, 12, "twelve new statuses");
    for (let i = 1; i <= 12; i += 1) assert.equal(statusesByText(target).get(`Single race ${i} of 12`), 1);

    // Each request reports what happened to its post: sent by it, or already sent / being sent.
    const sentBy = new Map<string, number>();
    const senders = { batch: 0, single: 0 };
    const reports = [
      ...batchBody.results.map((result) => ({ result, by: "batch" as const })),
      ...(singleResults as BatchBody["results"]).map((result) => ({ result, by: "single" as const })),
    ];
    for (const { result, by } of reports) {
      for (const targetResult of result.targets) {
        assert.ok(
          ["syndicated", "already_syndicated", "skipped"].includes(targetResult.status),
          `${result.url}: ${targetResult.status} ${targetResult.error ?? ""}`,
        );
        if (targetResult.status !== "syndicated") continue;
        sentBy.set(result.url, (sentBy.get(result.url) ?? 0) + 1);
        senders[by] += 1;
      }
    }
    for (const url of posts) assert.equal(sentBy.get(url), 1, `${url} was reported sent once`);
    assert.ok(senders.batch >= 1, "the batch sent the post it had begun");
    console.log(`# sent by the batch: ${senders.batch}, by single-post requests: ${senders.single}`);

    // Afterwards every post is syndicated: a last batch finds nothing left to do.
    const last = await syndicate(second, token);
    assert.equal(last.status, 200);
    const lastBody = (await last.json()) as BatchBody;
    assert.equal(lastBody.summary.posts, 0, JSON.stringify(lastBody.results));
  });
});
