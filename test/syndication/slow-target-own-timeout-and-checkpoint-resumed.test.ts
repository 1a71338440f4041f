// A syndicator may declare its own time limit (the archive's captures take minutes) and leave a
// note of progress with an unfinished send (a capture job) that the next attempt receives.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import {
  copyUrl,
  ledgerRow,
  openSyndication,
  type SyndicationFixture,
  TestTarget,
} from "./syndication-fixture.ts";

const slow = "https://slow.example/";
const resumable = "https://resumable.example/";

for (const engine of engines) {
  describe(`a target's own time limit and its checkpoints (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    let seen: (string | undefined)[];
    before(async () => {
      seen = [];
      const hangs = new TestTarget(slow, {
        idempotent: true,
        timeoutMs: 150,
        behaviour: () => new Promise<string>(() => {}),
      });
      const resumes = new TestTarget(resumable, {
        idempotent: true,
        behaviour: async (call, count) => {
          seen.push(call.resumeFrom);
          if (count === 1) {
            await call.checkpoint?.("job-42");
            throw new Error("Resumable: still capturing");
          }
          return copyUrl(resumable, call.postUrl, count);
        },
      });
      // The endpoint's own limit is long: only the target's limit can end the hanging send soon.
      fixture = await openSyndication(engine, [hangs, resumes], { targetTimeoutMs: 60_000 });
    });
    after(() => fixture.close());

    it("the target's timeoutMs wins over the endpoint's targetTimeoutMs", async () => {
      const post = await fixture.createPost("2024-01-01T00:00:00Z", [slow]);
      const result = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(result.targets[0]?.error, `Target ${slow} did not answer within 0.15 s`);
    });

    it("a checkpoint is handed to the next attempt, and cleared once the send succeeds", async () => {
      const post = await fixture.createPost("2024-01-02T00:00:00Z", [resumable]);
      await fixture.syndication.runs.syndicatePost(post.url, "manual");
      const { rows } = await fixture.database.query<{ checkpoint: string | null }>(
        "SELECT checkpoint FROM syndication_targets WHERE post_id = $1::bigint AND target_uid = $2",
        [post.id, resumable],
      );
      assert.equal(rows[0]?.checkpoint, "job-42");
      await fixture.syndication.runs.syndicatePost(post.url, "manual", { retryFailed: true });
      assert.deepEqual(seen, [undefined, "job-42"]);
      assert.equal((await ledgerRow(fixture.database, post.id, resumable))?.state, "syndicated");
      const after = await fixture.database.query<{ checkpoint: string | null }>(
        "SELECT checkpoint FROM syndication_targets WHERE post_id = $1::bigint AND target_uid = $2",
        [post.id, resumable],
      );
      assert.equal(after.rows[0]?.checkpoint, null);
    });
  });
}
