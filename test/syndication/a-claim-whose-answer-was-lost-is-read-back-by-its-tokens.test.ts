// A claim that rode a write-back whose statement threw may have been committed all the same
// (decision 0075, guard 1): what it took is read back by the tokens it was prepared with
// (Ledger.readBackClaim), each row with the attempt it started, and adopted. Only what it took:
// a row another claimer held, or one another claim took since, is never handed out twice.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DEFAULT_BACKOFF, type PostClaimRequest } from "../../src/syndication/ledger/claims.ts";
import { Ledger } from "../../src/syndication/ledger/ledger.ts";
import { engines } from "../helpers/databases.ts";
import { openSyndication, type SyndicationFixture } from "./syndication-fixture.ts";

const first = "https://a.example/@me";
const second = "https://b.example/@me";

const request = (postId: string, uids: readonly string[], holder = "batch-instance"): PostClaimRequest => ({
  postId,
  holder,
  runId: null,
  trigger: "batch",
  targets: uids.map((targetUid) => ({ targetUid, idempotencyKey: `key-${targetUid}` })),
});

for (const engine of engines)
  describe(`a claim whose answer was lost is read back by its tokens (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    let ledger: Ledger;
    before(async () => {
      fixture = await openSyndication(engine, []);
      ledger = new Ledger(fixture.database, DEFAULT_BACKOFF);
    });
    after(() => fixture.close());

    it("reads back every row it took, with its token and its attempt, as its answer said", async () => {
      const post = await fixture.createPost("2026-11-01T10:00:00Z", [first, second]);
      const prepared = ledger.prepareClaim(request(post.id, [first, second]));
      const answered = ledger.claimsFrom(
        prepared,
        await ledger.runAlongside(ledger.claimStatement(prepared)),
      );
      assert.equal(answered.size, 2);
      const readBack = await ledger.readBackClaim(prepared);
      assert.deepEqual(readBack, answered);
      for (const uid of [first, second])
        assert.equal(readBack.get(uid)?.token, prepared.tokens.get(uid), `${uid} under its own token`);
    });

    it("a row another claimer held when it ran is not read back", async () => {
      const post = await fixture.createPost("2026-11-02T10:00:00Z", [first, second]);
      const elsewhere = await ledger.claimPost(request(post.id, [first], "other-instance"));
      assert.equal(elsewhere.size, 1);
      const prepared = ledger.prepareClaim(request(post.id, [first, second]));
      await ledger.runAlongside(ledger.claimStatement(prepared));
      assert.deepEqual([...(await ledger.readBackClaim(prepared)).keys()], [second]);
    });

    it("a row another claim took since is not read back", async () => {
      const post = await fixture.createPost("2026-11-03T10:00:00Z", [first, second]);
      const prepared = ledger.prepareClaim(request(post.id, [first, second]));
      const answered = ledger.claimsFrom(
        prepared,
        await ledger.runAlongside(ledger.claimStatement(prepared)),
      );
      const lost = answered.get(first);
      assert.ok(lost);
      // Its send failed, and a user's retry took the row again under a claim of its own.
      await ledger.recordFailure(lost, { error: "503 Service Unavailable", permanent: false });
      const retry = await ledger.claimPost({ ...request(post.id, [first], "user-retry"), force: true });
      assert.equal(retry.size, 1);
      const readBack = await ledger.readBackClaim(prepared);
      assert.deepEqual([...readBack.keys()], [second]);
      assert.deepEqual(readBack.get(second), answered.get(second));
    });

    it("a claim that took nothing reads back nothing", async () => {
      const post = await fixture.createPost("2026-11-04T10:00:00Z", [first]);
      await fixture.database.query("UPDATE posts SET deleted_at = now() WHERE id = $1::bigint", [post.id]);
      const prepared = ledger.prepareClaim(request(post.id, [first]));
      await ledger.runAlongside(ledger.claimStatement(prepared));
      assert.equal((await ledger.readBackClaim(prepared)).size, 0);
    });
  });
