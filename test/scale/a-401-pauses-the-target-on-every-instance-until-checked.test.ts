// Decision 0048: after a 401 the banner says "Posts wait until it takes them again", and they
// must: two instances on one PostgreSQL schema (a pool each, as two processes have) both leave the
// refused target alone, in every later run, and the scheduler of neither finds anything due for it,
// until a check succeeds: the scheduler's own check, when its backoff says, or the user's Check now.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import type { Database } from "../../src/contract/database.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { openPostgres } from "../../src/server/database/postgres.ts";
import { postMigrations } from "../../src/server/posts/migrations.ts";
import { createPostService } from "../../src/server/posts/post-service.ts";
import type { PostService } from "../../src/server/posts/post-service-interface.ts";
import { syndicationMigrations } from "../../src/syndication/migrations.ts";
import { Syndication } from "../../src/syndication/syndication.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { collect, publication, silent } from "../syndication/syndication-fixture.ts";
import { type SharedDatabase, sharedPostgres } from "./cluster.ts";

const MINUTE = 60_000;

describe("a 401 pauses the target on every instance until a check succeeds (PostgreSQL)", () => {
  let shared: SharedDatabase;
  const databases: Database[] = [];
  const instances: Syndication[] = [];
  let sandbox: MastodonSandbox;
  let uid: string;
  let posts: PostService;
  let now = Date.now();
  let slug = 0;
  const statusRequests = () => sandbox.requests.filter((r) => r.path === "/api/v1/statuses").length;
  const verifyRequests = () =>
    sandbox.requests.filter((r) => r.path === "/api/v1/accounts/verify_credentials").length;
  const createPost = () => {
    slug += 1;
    return posts.create({
      properties: {
        content: `Post ${slug}`,
        published: `2024-05-${10 + slug}T00:00:00Z`,
        "mp-syndicate-to": [uid],
      },
      slug: `post-${slug}`,
    });
  };

  before(async () => {
    shared = await sharedPostgres();
    sandbox = await startMastodonSandbox({ accessToken: "token", user: "alice" });
    for (const name of ["first", "second"]) {
      const database = await openPostgres(shared.url);
      databases.push(database);
      if (name === "first") await migrate(database, [...postMigrations, ...syndicationMigrations]);
      const syndicator = new MastodonSyndicator({ url: sandbox.url, user: "alice", accessToken: "token" });
      uid = syndicator.info.uid;
      instances.push(
        new Syndication({
          database,
          posts: createPostService(database, publication),
          syndicators: () => [syndicator],
          publication,
          logger: silent,
          options: {
            holder: name,
            clock: () => now,
            retry: { baseMs: MINUTE, maxMs: 86_400_000 },
            schedule: { whenLive: false, afterPublishMs: 0 },
          },
        }),
      );
    }
    posts = createPostService(databases[0] as Database, publication);
  });
  after(async () => {
    await Promise.all(instances.map((instance) => instance.runs.shutdown()));
    await Promise.all(databases.map((database) => database.close()));
    await shared.drop();
    await sandbox.close();
  });

  it("the first instance's 401 leaves the target alone on both, in batches and single posts", async () => {
    const [first, second] = instances as [Syndication, Syndication];
    sandbox.setFailure(401, "The access token is invalid", "POST /api/v1/statuses");
    await createPost();
    await collect(await first.runs.startBatch("batch"));
    assert.equal(statusRequests(), 1, "the refusal itself");

    const later = await createPost();
    await createPost();
    for (const instance of [second, first]) {
      const { results } = await collect(await instance.runs.startBatch("schedule"));
      const held = results.filter((result) => result.targets[0]?.error?.startsWith("Paused: "));
      assert.equal(held.length, 2, "posts 2 and 3 held back by the pause");
      const single = await instance.runs.syndicatePost(later.url, "webhook");
      assert.match(
        single.targets[0]?.error ?? "",
        /^Paused: @alice@\S+ refused the credentials \(Mastodon: 401 The access token is invalid\), until a check succeeds/,
      );
      // Nothing is due for the refused target but its check, a minute after the refusal.
      const due = (await instance.due.nextDue())?.getTime() ?? 0;
      assert.ok(due > now, `due ${new Date(due).toISOString()} is after now`);
      assert.equal((await instance.reads.pausedTargets()).get(uid)?.kind, "refused");
    }
    assert.equal(statusRequests(), 1, "not one more post reached the refused target from either instance");
  });

  it("the scheduler checks it only when its backoff says, and a failed check keeps the pause", async () => {
    const [first, second] = instances as [Syndication, Syndication];
    sandbox.setFailure(401, "The access token is invalid", "GET /api/v1/accounts/verify_credentials");
    const checks = verifyRequests();
    assert.equal(await second.due.checkPausedTargets(), 0, "no check before its time");
    assert.equal(verifyRequests(), checks);
    // The check is due a minute after the refusal (the backoff's base).
    const checkAt = (await second.reads.pausedTargets()).get(uid)?.checkAt?.getTime() ?? 0;
    assert.ok(checkAt - now > 50_000, "about a minute ahead");
    now = checkAt;
    assert.equal(await second.due.checkPausedTargets(), 1);
    assert.equal(verifyRequests(), checks + 1);
    assert.equal(await first.due.checkPausedTargets(), 0, "the other instance sees the check was made");
    await collect(await first.runs.startBatch("schedule"));
    assert.equal(statusRequests(), 1);
  });

  it("once the user fixes the token and clicks Check now on one instance, both send again", async () => {
    const [first, second] = instances as [Syndication, Syndication];
    sandbox.clearBehaviour();
    await first.runs.checkTargets();
    assert.equal((await second.reads.pausedTargets()).size, 0);
    const due = await second.due.nextDue();
    assert.ok(due && due.getTime() <= Date.now(), "the held-back posts are due at once");
    await collect(await second.runs.startBatch("schedule"));
    assert.ok(statusRequests() >= 3, `the held-back posts went out (${statusRequests()} requests)`);
  });
});
