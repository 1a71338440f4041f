// A post's outcomes, recorded by the ledger's one statement (decision 0068), asked directly: what each
// kind leaves in the target's row and in its attempt, and which rows it must leave alone. A slip here
// costs users a double send (a failure recorded as due at once, a refusal not kept permanent, a
// success from another claimer's row overwritten) or a lost copy (its link never written back).
// The syndication runs reach this statement too, but only through the outcomes their fake targets
// happen to give; each column is asserted here, against the clock the ledger is given.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { databaseNow } from "../../src/syndication/database-now.ts";
import type { Claim } from "../../src/syndication/ledger/claims.ts";
import { Ledger } from "../../src/syndication/ledger/ledger.ts";
import type { Outcome } from "../../src/syndication/ledger/outcomes.ts";
import { recordedOutcomes } from "../../src/syndication/ledger/outcomes.ts";
import { MAX_ERROR_LENGTH, UNKNOWN_OUTCOME_ERROR } from "../../src/syndication/ledger/rows.ts";
import { engines } from "../helpers/databases.ts";
import { openSyndication, type SyndicationFixture } from "./syndication-fixture.ts";

const NOW = Date.parse("2024-06-01T12:00:00Z");
const BASE_MS = 1_000;
const MAX_MS = 50_000;
const one = "https://one.example/@me";
const two = "https://two.example/@me";
const three = "https://three.example/@me";

interface Row {
  state: string;
  url: string | null;
  attempts: number;
  last_error: string | null;
  permanent: boolean;
  last_status: number | null;
  next_attempt_at: Date | null;
  written_back: boolean;
  checkpoint: string | null;
  digest: string | null;
  thread: unknown;
  updated_at: Date;
}

interface AttemptRow {
  outcome: string;
  url: string | null;
  error: string | null;
  finished_at: Date | null;
}

for (const engine of engines) {
  describe(`each outcome moves only the row its claim still holds (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    let ledger: Ledger;
    before(async () => {
      fixture = await openSyndication(engine, []);
      ledger = new Ledger(
        fixture.database,
        { baseMs: BASE_MS, maxMs: MAX_MS },
        databaseNow(() => NOW),
      );
    });
    after(() => fixture.close());

    const claimAll = async (uids: string[], extra: Record<string, unknown> = {}) => {
      const post = await fixture.createPost("2024-01-01T00:00:00Z", uids, extra);
      const claims = await ledger.claimPost({
        postId: post.id,
        targets: uids.map((targetUid) => ({ targetUid, idempotencyKey: `key-${targetUid}` })),
        holder: "test",
        runId: null,
        trigger: "manual",
      });
      assert.equal(claims.size, uids.length);
      return { postId: post.id, claim: (uid: string) => claims.get(uid) as Claim };
    };
    const row = async (postId: string, uid: string) =>
      (
        await fixture.database.query<Row>(
          `SELECT state, url, attempts, last_error, permanent, last_status, next_attempt_at, written_back,
                  checkpoint, digest, thread, updated_at
             FROM syndication_targets WHERE post_id = $1::bigint AND target_uid = $2`,
          [postId, uid],
        )
      ).rows[0] as Row;
    const attempt = async (claim: Claim) =>
      (
        await fixture.database.query<AttemptRow>(
          "SELECT outcome, url, error, finished_at FROM syndication_attempts WHERE id = $1::bigint",
          [claim.attemptId],
        )
      ).rows[0] as AttemptRow;
    const set = (postId: string, uid: string, assignments: string) =>
      fixture.database.query(
        `UPDATE syndication_targets SET ${assignments} WHERE post_id = $1::bigint AND target_uid = $2`,
        [postId, uid],
      );
    const record = (postId: string, outcomes: Outcome[], writtenBack: string[] = []) =>
      ledger.recordOutcomes({ postId, outcomes, writtenBack });
    const at = (ms: number) => new Date(NOW + ms).toISOString();

    it("a success: the copy's link, digest and thread kept, the row's error, backoff and checkpoint cleared", async () => {
      const { postId, claim } = await claimAll([one, two]);
      // As a failed try and a thread's progress leave a row before it is claimed again.
      await set(postId, one, "last_error = 'Earlier: 503', last_status = 503, checkpoint = 'half'");
      const thread = [{ id: "1", url: "https://one.example/@me/1", digest: "d1" }];
      const recorded = await record(postId, [
        {
          kind: "syndicated",
          claim: claim(one),
          url: "https://one.example/@me/1",
          digest: "digest-1",
          thread,
          writtenBack: true,
        },
        {
          kind: "syndicated",
          claim: claim(two),
          url: "https://two.example/@me/2",
          digest: null,
          thread: [],
          writtenBack: false,
        },
      ]);
      assert.deepEqual(Object.fromEntries(recorded), {
        [one]: { target_uid: one, state: "syndicated", last_error: null },
        [two]: { target_uid: two, state: "syndicated", last_error: null },
      });
      const first = await row(postId, one);
      assert.equal(first.state, "syndicated");
      assert.equal(first.url, "https://one.example/@me/1");
      assert.equal(first.last_error, null);
      assert.equal(first.permanent, false);
      assert.equal(first.last_status, 503, "a success keeps the last refusal's status for the page");
      assert.equal(first.next_attempt_at, null);
      assert.equal(first.written_back, true);
      assert.equal(first.checkpoint, null);
      assert.equal(first.digest, "digest-1");
      assert.deepEqual(typeof first.thread === "string" ? JSON.parse(first.thread) : first.thread, thread);
      assert.equal(first.updated_at.toISOString(), at(0));
      const second = await row(postId, two);
      assert.equal(second.written_back, false, "its link is still to be written back");
      assert.equal(second.thread, null, "an empty thread is no thread");
      assert.equal(second.digest, null);
      assert.deepEqual(await attempt(claim(one)), {
        outcome: "syndicated",
        url: "https://one.example/@me/1",
        error: null,
        finished_at: new Date(NOW),
      });
    });

    it("a failure backs off by its attempts from the ledger's clock, or to the target's Retry-After when later", async () => {
      const { postId, claim } = await claimAll([one, two, three]);
      // The third row's fourth try: 2^4 × the base.
      await set(postId, three, "attempts = 4");
      const recorded = await record(postId, [
        { kind: "failed", claim: claim(one), error: "One: 503", permanent: false, status: 503 },
        {
          kind: "failed",
          claim: claim(two),
          error: "Two: 429",
          permanent: false,
          status: 429,
          retryAt: new Date(NOW + 60_000),
        },
        {
          kind: "failed",
          claim: claim(three),
          error: "Three: 500",
          permanent: false,
          retryAt: new Date(NOW + 1_000),
        },
      ]);
      assert.deepEqual(recorded.get(one), { target_uid: one, state: "failed", last_error: "One: 503" });
      const first = await row(postId, one);
      assert.equal(first.state, "failed");
      assert.equal(first.permanent, false);
      assert.equal(first.last_status, 503);
      assert.equal(first.last_error, "One: 503");
      assert.equal(first.url, null);
      assert.equal(
        first.next_attempt_at?.toISOString(),
        at(2 * BASE_MS),
        "the first try's failure: 2^1 × base",
      );
      assert.equal(
        (await row(postId, two)).next_attempt_at?.toISOString(),
        at(60_000),
        "Retry-After is later",
      );
      const third = await row(postId, three);
      assert.equal(third.next_attempt_at?.toISOString(), at(16 * BASE_MS), "its backoff is later");
      assert.equal(third.last_status, null, "no status given: none kept");
      assert.deepEqual(await attempt(claim(one)), {
        outcome: "failed",
        url: null,
        error: "One: 503",
        finished_at: new Date(NOW),
      });
    });

    it("the backoff never waits longer than its cap", async () => {
      const { postId, claim } = await claimAll([one]);
      await set(postId, one, "attempts = 30");
      await record(postId, [{ kind: "failed", claim: claim(one), error: "One: 503", permanent: false }]);
      assert.equal((await row(postId, one)).next_attempt_at?.toISOString(), at(MAX_MS));
    });

    it("a permanent refusal is kept permanent, with no next try, until the user retries", async () => {
      const { postId, claim } = await claimAll([one]);
      await record(postId, [
        {
          kind: "failed",
          claim: claim(one),
          error: "One: 401",
          permanent: true,
          status: 401,
          retryAt: new Date(NOW + 60_000),
        },
      ]);
      const refused = await row(postId, one);
      assert.equal(refused.state, "failed");
      assert.equal(refused.permanent, true);
      assert.equal(refused.next_attempt_at, null);
      assert.equal(refused.last_status, 401);
      const again = await ledger.claim({
        postId,
        targetUid: one,
        idempotencyKey: "key",
        holder: "test",
        runId: null,
        trigger: "batch",
      });
      assert.equal(again, null, "a run never sends it again");
    });

    it("held for the target's credentials: pending again at once, its attempt a failure", async () => {
      const { postId, claim } = await claimAll([one]);
      const recorded = await record(postId, [
        { kind: "held", claim: claim(one), error: "One: 401", status: 401 },
      ]);
      assert.deepEqual(recorded.get(one), { target_uid: one, state: "pending", last_error: "One: 401" });
      const waiting = await row(postId, one);
      assert.equal(waiting.state, "pending");
      assert.equal(waiting.permanent, false);
      assert.equal(waiting.next_attempt_at, null);
      assert.equal(waiting.last_status, 401);
      assert.deepEqual(await attempt(claim(one)), {
        outcome: "failed",
        url: null,
        error: "One: 401",
        finished_at: new Date(NOW),
      });
    });

    it("an unknown outcome is never sent again by a run, and says so", async () => {
      const { postId, claim } = await claimAll([one]);
      await record(postId, [{ kind: "unknown", claim: claim(one), error: "One: timed out" }]);
      const unknown = await row(postId, one);
      assert.equal(unknown.state, "unknown");
      assert.equal(unknown.last_error, `One: timed out; ${UNKNOWN_OUTCOME_ERROR}`);
      assert.equal(unknown.permanent, false);
      assert.equal(unknown.next_attempt_at, null);
      assert.equal((await attempt(claim(one))).outcome, "unknown");
      const again = await ledger.claim({
        postId,
        targetUid: one,
        idempotencyKey: "key",
        holder: "test",
        runId: null,
        trigger: "batch",
      });
      assert.equal(again, null);
    });

    it("errors are stored clipped and on one line", async () => {
      const { postId, claim } = await claimAll([one, two]);
      await record(postId, [
        {
          kind: "failed",
          claim: claim(one),
          error: `One:\r\n${"x".repeat(3 * MAX_ERROR_LENGTH)}`,
          permanent: false,
        },
        { kind: "held", claim: claim(two), error: "Two:\u001b[31m refused" },
      ]);
      const long = (await row(postId, one)).last_error ?? "";
      assert.equal(long.length, MAX_ERROR_LENGTH);
      assert.ok(long.startsWith("One: x"), long.slice(0, 10));
      assert.equal((await row(postId, two)).last_error, "Two: [31m refused");
    });

    it("a row another claim took since, or no longer sending, is left alone and not reported", async () => {
      const { postId, claim } = await claimAll([one, two, three]);
      // Taken by another claimer since (its claim went stale and was taken again).
      await set(postId, one, "claimed_by = 'another/instance'");
      // Marked unknown meanwhile (its process was taken for dead): a failure must not make it due.
      await set(postId, two, "state = 'unknown', last_error = 'Interrupted'");
      // Marked unknown meanwhile, then its success arrives: that is recorded.
      await set(postId, three, "state = 'unknown'");
      const recorded = await record(postId, [
        { kind: "syndicated", claim: claim(one), url: "u1", digest: null, thread: null, writtenBack: true },
        { kind: "failed", claim: claim(two), error: "Two: 503", permanent: false },
        { kind: "syndicated", claim: claim(three), url: "u3", digest: null, thread: null, writtenBack: true },
      ]);
      assert.deepEqual([...recorded.keys()], [three]);
      const first = await row(postId, one);
      assert.equal(first.state, "sending");
      assert.equal(first.url, null);
      const second = await row(postId, two);
      assert.equal(second.state, "unknown");
      assert.equal(second.last_error, "Interrupted");
      assert.equal(second.next_attempt_at, null);
      assert.equal((await row(postId, three)).state, "syndicated");
    });

    it("the same target of another post is never moved by this post's outcomes", async () => {
      const first = await claimAll([one]);
      const second = await claimAll([one]);
      // Only the other post's claim carries that token: its row is in the recordset.
      await set(first.postId, one, `claimed_by = '${first.claim(one).token}'`);
      await set(second.postId, one, `claimed_by = '${first.claim(one).token}'`);
      await record(first.postId, [
        {
          kind: "syndicated",
          claim: first.claim(one),
          url: "u1",
          digest: null,
          thread: null,
          writtenBack: true,
        },
      ]);
      assert.equal((await row(first.postId, one)).state, "syndicated");
      assert.equal((await row(second.postId, one)).state, "sending");
    });

    it("rows named written back are marked only when syndicated; a recorded row's own answer wins", async () => {
      const { postId, claim } = await claimAll([one, two, three]);
      await set(postId, two, "state = 'syndicated', url = 'u2', claimed_by = NULL");
      await set(postId, three, "state = 'failed', claimed_by = NULL");
      const other = await claimAll([two]);
      await set(other.postId, two, "state = 'syndicated', url = 'other', claimed_by = NULL");
      await record(
        postId,
        [
          {
            kind: "syndicated",
            claim: claim(one),
            url: "u1",
            digest: null,
            thread: null,
            writtenBack: false,
          },
        ],
        [one, two, three],
      );
      assert.equal((await row(postId, one)).written_back, false, "its link is still to be written back");
      assert.equal((await row(postId, one)).state, "syndicated");
      assert.equal((await row(postId, two)).written_back, true);
      assert.equal((await row(postId, three)).written_back, false, "no copy, no link");
      assert.equal((await row(other.postId, two)).written_back, false, "another post's row");
    });

    it("no outcome but links held: only the marks", async () => {
      const { postId } = await claimAll([one]);
      await set(postId, one, "state = 'syndicated', url = 'u1', claimed_by = NULL");
      assert.equal((await record(postId, [], [one])).size, 0);
      assert.equal((await row(postId, one)).written_back, true);
    });
  });
}

describe("what the outcomes statement answered", () => {
  it("is read by uid, from text or parsed json, and nothing is an empty map", () => {
    const rows = [{ target_uid: one, state: "syndicated", last_error: null }];
    assert.deepEqual(recordedOutcomes(JSON.stringify(rows)), new Map([[one, rows[0]]]));
    assert.deepEqual(recordedOutcomes(rows), new Map([[one, rows[0]]]));
    assert.deepEqual(recordedOutcomes(null), new Map());
  });
});
