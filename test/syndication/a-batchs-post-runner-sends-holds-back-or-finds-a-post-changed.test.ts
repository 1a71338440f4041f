// What a batch's runner does with one post (decisions 0049, 0075 and 0080), asked directly on the real
// database: a post as its page listed it is sent; one edited since is found changed (nothing sent,
// nothing claimed) and, read again, sent; a claim that rode a write-back is sent with what it took, or
// found changed when it took nothing; a scheduled run holds back a post not due and reports nothing,
// prepares no next post whose gate needs a live check (that request is made at its own turn), and never
// forces a send, even in a run started as a retry.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Post } from "../../src/contract/posts.ts";
import type { LiveAnswer } from "../../src/syndication/due/live-checks.ts";
import { SyndicationParts } from "../../src/syndication/parts.ts";
import { PostRunner, type PostRunnerRun } from "../../src/syndication/runs/post-runner.ts";
import { engines } from "../helpers/databases.ts";
import {
  ledgerRow,
  openSyndication,
  publication,
  type SyndicationFixture,
  silent,
  TestTarget,
} from "./syndication-fixture.ts";

const NOW = Date.parse("2026-11-29T12:00:00.000Z");

for (const engine of engines) {
  describe(`a batch's post, through its runner (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    let target: TestTarget;
    let parts: SyndicationParts;
    /** The pages the live check was asked about, and the URLs it answers live. */
    const checked: string[] = [];
    const live = new Set<string>();
    before(async () => {
      target = new TestTarget("https://social.example/@me");
      fixture = await openSyndication(engine, [target]);
      parts = new SyndicationParts({
        database: fixture.database,
        posts: fixture.posts,
        syndicators: () => [target],
        publication,
        logger: silent,
        options: { clock: () => NOW, schedule: { whenLive: true, afterPublishMs: 0 } },
        async checkLive(url): Promise<LiveAnswer> {
          checked.push(url);
          return live.has(url)
            ? { live: true, status: 200 }
            : { live: false, status: 404, error: "404 Not Found" };
        },
      });
    });
    after(() => fixture.close());

    let published = 0;
    /** A new post naming the target, published an hour before now, a minute after the last one. */
    const newPost = () => {
      published += 1;
      return fixture.createPost(new Date(NOW - 3_600_000 + published * 60_000).toISOString(), [
        target.info.uid,
      ]);
    };
    const runnerOf = async (run: Omit<PostRunnerRun, "runId">) =>
      new PostRunner(parts, { runId: await parts.runLog.start("batch", run.trigger, parts.holder), ...run });
    const knownOf = async (runner: PostRunner, post: Post) => (await runner.knownOf([post])).get(post.id);
    const readAgain = async (post: Post) => {
      const again = await fixture.posts.findById(post.id);
      assert.ok(again);
      return again;
    };

    it("sends a post as its page listed it, finds one edited since changed without claiming it, and sends that one read again", async () => {
      const runner = await runnerOf({ trigger: "manual", force: false });
      const [kept, edited] = [await newPost(), await newPost()];
      const known = await runner.knownOf([kept, edited]);
      await fixture.posts.update(edited.url, { replace: { content: ["Edited"] } });

      const sent = await runner.syndicateBefore(kept, known.get(kept.id), undefined);
      assert.ok("result" in sent);
      assert.equal(sent.result?.status, "syndicated");
      assert.equal(target.callsFor(kept.url).length, 1);

      assert.deepEqual(await runner.syndicateBefore(edited, known.get(edited.id), undefined), {
        changed: true,
      });
      assert.equal(target.callsFor(edited.url).length, 0);
      assert.equal(
        await ledgerRow(fixture.database, edited.id, target.info.uid),
        undefined,
        "nothing claimed",
      );

      const again = await runner.syndicateBefore(await readAgain(edited), undefined, undefined);
      assert.ok("result" in again);
      assert.equal(again.result?.status, "syndicated");
      assert.equal(target.callsFor(edited.url).length, 1);
    });

    it("sends a post whose claim rode a write-back with what it took, and finds it changed when it took nothing", async () => {
      const runner = await runnerOf({ trigger: "manual", force: false });
      const [rode, edited] = [await newPost(), await newPost()];
      const known = await runner.knownOf([rode, edited]);
      const ride = async (post: Post) => {
        const prepared = await runner.prepareNext(post, known.get(post.id));
        assert.ok(prepared, "a post with a target to claim is prepared");
        return { prepared, claims: await parts.ledger.runClaim(prepared.claim) };
      };

      const claimed = await ride(rode);
      assert.equal((await ledgerRow(fixture.database, rode.id, target.info.uid))?.state, "sending");
      const sent = await runner.syndicateBefore(rode, known.get(rode.id), undefined, claimed);
      assert.ok("result" in sent);
      assert.equal(sent.result?.status, "syndicated");
      assert.equal(target.callsFor(rode.url).length, 1);

      const prepared = await runner.prepareNext(edited, known.get(edited.id));
      assert.ok(prepared);
      await fixture.posts.update(edited.url, { replace: { content: ["Edited"] } });
      const tookNothing = { prepared, claims: await parts.ledger.runClaim(prepared.claim) };
      assert.equal(tookNothing.claims.size, 0);
      assert.deepEqual(await runner.syndicateBefore(edited, known.get(edited.id), undefined, tookNothing), {
        changed: true,
      });
      assert.equal(target.callsFor(edited.url).length, 0);
    });

    it("prepares no next post that is not public, and reports it at its turn as unchanged", async () => {
      const runner = await runnerOf({ trigger: "manual", force: false });
      published += 1;
      const kept = await fixture.createPost(
        new Date(NOW - 3_600_000 + published * 60_000).toISOString(),
        [target.info.uid],
        {
          visibility: "private",
        },
      );
      const known = await knownOf(runner, kept);
      assert.equal(await runner.prepareNext(kept, known), undefined);
      const reported = await runner.syndicateBefore(kept, known, undefined);
      assert.ok("result" in reported);
      assert.equal(reported.result?.url, kept.url);
      assert.equal(reported.result?.status, "unchanged");
      assert.equal(target.callsFor(kept.url).length, 0);
    });

    it("in a scheduled run, prepares no next post whose page needs a live check, holds it back at its turn after checking, and sends it once live", async () => {
      const runner = await runnerOf({ trigger: "schedule", force: false, holdBackUntilDue: true });
      const post = await newPost();
      const known = await knownOf(runner, post);
      assert.equal(await runner.prepareNext(post, known), undefined);
      assert.deepEqual(checked, [], "preparing makes no request");

      assert.deepEqual(await runner.syndicateBefore(post, known, undefined), { result: null });
      assert.deepEqual(checked, [post.url]);
      assert.equal(target.callsFor(post.url).length, 0);

      const other = await newPost();
      live.add(other.url);
      const sent = await runner.syndicateBefore(other, await knownOf(runner, other), undefined);
      assert.ok("result" in sent);
      assert.equal(sent.result?.status, "syndicated");
      assert.deepEqual(checked, [post.url, other.url]);
    });

    it("in a scheduled run, prepares a next post whose page was seen live, without a request", async () => {
      const runner = await runnerOf({ trigger: "schedule", force: false, holdBackUntilDue: true });
      const post = await newPost();
      await parts.liveChecks.record(post.id, post.url, { live: true, status: 200 });
      const before = checked.length;
      const prepared = await runner.prepareNext(post, await knownOf(runner, post));
      assert.equal(prepared?.post.id, post.id);
      assert.equal(checked.length, before);
    });

    it("never forces a send in a scheduled run, even one started as a retry; a manual retry does", async () => {
      const post = await newPost();
      await fixture.database.query(
        `INSERT INTO syndication_targets (post_id, target_uid, state, attempts, idempotency_key, permanent,
             next_attempt_at, last_error)
           VALUES ($1::bigint, $2, 'failed', 1, 'key', true, NULL, 'Refuses: 401 The access token is invalid')`,
        [post.id, target.info.uid],
      );
      const scheduled = await runnerOf({ trigger: "schedule", force: true, holdBackUntilDue: true });
      const prepared = await scheduled.prepareNext(post, await knownOf(scheduled, post));
      assert.deepEqual(prepared?.claim.uids, [], "its claim takes nothing");
      const held = await scheduled.syndicateBefore(post, await knownOf(scheduled, post), undefined);
      assert.ok("result" in held);
      assert.equal(held.result?.url, post.url, "a post with nothing to claim is reported as it stands");
      assert.notEqual(held.result?.status, "syndicated");
      assert.equal(target.callsFor(post.url).length, 0);

      const retry = await runnerOf({ trigger: "manual", force: true });
      const sent = await retry.syndicateBefore(post, await knownOf(retry, post), undefined);
      assert.ok("result" in sent);
      assert.equal(sent.result?.status, "syndicated");
      assert.equal(target.callsFor(post.url).length, 1);
    });
  });
}
