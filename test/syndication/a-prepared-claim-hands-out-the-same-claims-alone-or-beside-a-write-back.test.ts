// A post's claim is prepared once (Ledger.prepareClaim) and run either as a statement of its own
// (runClaim) or inside the previous post's write-back (claimStatement, its answer read through json
// by claimsFrom; decision 0075). Both must hand out the same claims: the row as the database holds
// it (timestamps as dates, whatever json made of them), the token the row is claimed by, and the
// attempt row each target's send is recorded on, which carries that target's own copy and words
// (decision 0081). Taken in the order of their uids, whatever order they were asked in, so that two
// claimers of one post never wait on each other in a circle (decision 0063).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import type { SentCopy } from "../../src/syndication/copies/sent-copy.ts";
import { databaseNow } from "../../src/syndication/database-now.ts";
import { type Claim, DEFAULT_BACKOFF, type PostClaimRequest } from "../../src/syndication/ledger/claims.ts";
import { Ledger } from "../../src/syndication/ledger/ledger.ts";
import { engines } from "../helpers/databases.ts";
import { openSyndication, type SyndicationFixture } from "./syndication-fixture.ts";

const first = "https://a.example/@me";
const second = "https://b.example/@me";
const NOW = new Date("2026-11-29T10:00:00.000Z");

/** What the first target's attempt sends: a copy of its own, so that one recorded elsewhere shows. */
const firstCopy: SentCopy = {
  text: "Post, as a.example shows it",
  photos: [{ url: "https://site.example/photo.jpg", alt: "A photo" }],
  permalink: "text",
  card: null,
  action: null,
};

/** A claim of both targets, asked second first; the second carries the user's own words, no copy. */
const request = (postId: string): PostClaimRequest => ({
  postId,
  holder: "instance-1",
  runId: null,
  trigger: "batch",
  targets: [
    { targetUid: second, idempotencyKey: `key-b-${postId}`, ownText: "My own words for b" },
    { targetUid: first, idempotencyKey: `key-a-${postId}`, sent: firstCopy },
  ],
});

/**
 * A claim's times as numbers (null: none), compared before the whole entry: an invalid date in an
 * assertion's diff stops node's test runner itself instead of failing the test.
 */
const timesOf = ({ entry }: Claim) =>
  [entry.nextAttemptAt, entry.claimedAt, entry.createdAt, entry.updatedAt].map((time) =>
    time === null ? null : time.getTime(),
  );

for (const engine of engines)
  describe(`a prepared claim hands out the same claims alone or beside a write-back (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    let ledger: Ledger;
    before(async () => {
      fixture = await openSyndication(engine, []);
      ledger = new Ledger(
        fixture.database,
        DEFAULT_BACKOFF,
        databaseNow(() => NOW.getTime()),
      );
    });
    after(() => fixture.close());

    /** The claims as they must be, each row read back as the database holds it. */
    async function checkClaims(postId: string, claims: ReadonlyMap<string, Claim>) {
      assert.deepEqual([...claims.keys()].sort(), [first, second]);
      const history = await ledger.attemptsForPost(postId);
      for (const [uid, key] of [
        [first, `key-a-${postId}`],
        [second, `key-b-${postId}`],
      ] as const) {
        const claim = claims.get(uid);
        assert.ok(claim, uid);
        assert.match(claim.token, /^instance-1\/[0-9a-f]{8}$/);
        assert.equal(claim.trigger, "batch");
        assert.deepEqual(timesOf(claim), [null, NOW.getTime(), NOW.getTime(), NOW.getTime()]);
        assert.deepEqual(claim.entry, {
          postId,
          targetUid: uid,
          state: "sending",
          url: null,
          attempts: 1,
          lastError: null,
          permanent: false,
          idempotencyKey: key,
          nextAttemptAt: null,
          writtenBack: false,
          checkpoint: null,
          lastStatus: null,
          claimedBy: claim.token,
          claimedAt: NOW,
          createdAt: NOW,
          updatedAt: NOW,
          digest: null,
          thread: null,
        });
        const attempt = history.find((each) => each.id === claim.attemptId);
        assert.equal(attempt?.targetUid, uid, `${uid}'s claim names its own attempt`);
        assert.equal(attempt?.outcome, "sending");
      }
      // A second claimer would find each row held by exactly the token this claim hands out.
      const { rows } = await fixture.database.query<{ target_uid: string; claimed_by: string }>(
        "SELECT target_uid, claimed_by FROM syndication_targets WHERE post_id = $1::bigint",
        [postId],
      );
      for (const row of rows) assert.equal(row.claimed_by, claims.get(row.target_uid)?.token);
    }

    /** Each attempt's copy and own words, by target. */
    async function attemptsOf(postId: string) {
      const history = await ledger.attemptsForPost(postId);
      return Object.fromEntries(
        history.map((attempt) => [attempt.targetUid, { sent: attempt.sent, ownText: attempt.ownText }]),
      );
    }
    const expectedAttempts = {
      [first]: { sent: firstCopy, ownText: null },
      [second]: { sent: null, ownText: "My own words for b" },
    };

    it("run alone: each target claimed, its row, its token and its own attempt", async () => {
      const post = await fixture.createPost("2026-11-01T10:00:00Z", [first, second]);
      const claims = await ledger.claimPost(request(post.id));
      await checkClaims(post.id, claims);
      assert.deepEqual(await attemptsOf(post.id), expectedAttempts);
    });

    it("run beside a write-back, its answer read through json: the same claims", async () => {
      const post = await fixture.createPost("2026-11-02T10:00:00Z", [first, second]);
      const prepared = ledger.prepareClaim(request(post.id));
      const answer = await ledger.runAlongside(ledger.claimStatement(prepared));
      await checkClaims(post.id, ledger.claimsFrom(prepared, answer));
      assert.deepEqual(await attemptsOf(post.id), expectedAttempts);
    });

    it("a row taken before keeps its due time and counts the attempt, read through json as run alone", async () => {
      const alone = await fixture.createPost("2026-11-03T10:00:00Z", [first]);
      const beside = await fixture.createPost("2026-11-04T10:00:00Z", [first]);
      const due = new Date("2026-11-29T09:00:00.000Z");
      for (const post of [alone, beside])
        await fixture.database.query(
          `INSERT INTO syndication_targets (post_id, target_uid, state, attempts, idempotency_key, next_attempt_at,
               created_at, updated_at)
             VALUES ($1::bigint, $2, 'failed', 2, 'kept-key', $3::timestamptz, $3::timestamptz, $3::timestamptz)`,
          [post.id, first, due.toISOString()],
        );
      const ask = (postId: string): PostClaimRequest => ({
        ...request(postId),
        targets: [{ targetUid: first, idempotencyKey: "new-key" }],
      });
      const ranAlone = (await ledger.claimPost(ask(alone.id))).get(first);
      const prepared = ledger.prepareClaim(ask(beside.id));
      const ranBeside = ledger
        .claimsFrom(prepared, await ledger.runAlongside(ledger.claimStatement(prepared)))
        .get(first);
      for (const claim of [ranAlone, ranBeside]) {
        assert.ok(claim);
        assert.equal(claim.entry.attempts, 3);
        assert.equal(claim.entry.idempotencyKey, "kept-key", "an existing row keeps its own key");
        assert.deepEqual(timesOf(claim), [due.getTime(), NOW.getTime(), due.getTime(), NOW.getTime()]);
      }
    });

    it("takes the rows in the order of their uids, whatever order they were asked in", () => {
      const prepared = ledger.prepareClaim(request("1"));
      assert.deepEqual(prepared.uids, [first, second]);
      assert.deepEqual([...prepared.tokens.keys()], [first, second]);
    });

    it("an answer that holds no claims hands out none", () => {
      const prepared = ledger.prepareClaim(request("1"));
      assert.equal(ledger.claimsFrom(prepared, null).size, 0);
      assert.equal(ledger.claimsFrom(prepared, "[]").size, 0);
    });

    it("a claim of no target, run or read back, asks nothing of the database", async () => {
      let statements = 0;
      const counting: Database = {
        ...fixture.database,
        query(...args) {
          statements += 1;
          return fixture.database.query(...args);
        },
      };
      const quiet = new Ledger(counting);
      const post = await fixture.createPost("2026-11-05T10:00:00Z", [first]);
      const none = { ...request(post.id), targets: [] };
      assert.equal((await quiet.claimPost(none)).size, 0);
      assert.equal((await quiet.readBackClaim(quiet.prepareClaim(none))).size, 0);
      assert.equal(statements, 0);
    });
  });
