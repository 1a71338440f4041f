// A post's claim that does not say `force` is a run's: it leaves a row waiting out its backoff, one
// refused permanently and one whose outcome is unknown, each for its own time or for the user. Only
// a user's retry (force) takes them, and then all of them in the one statement.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PostClaimRequest } from "../../src/syndication/ledger/claims.ts";
import { Ledger } from "../../src/syndication/ledger/ledger.ts";
import { engines } from "../helpers/databases.ts";
import { ledgerRow, openSyndication, type SyndicationFixture } from "./syndication-fixture.ts";

const waiting = "https://waiting.example/@me";
const refused = "https://refused.example/@me";
const unknown = "https://unknown.example/@me";
const uids = [waiting, refused, unknown];

for (const engine of engines)
  describe(`a post's claim is forced only when asked (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    let ledger: Ledger;
    let postId: string;
    before(async () => {
      fixture = await openSyndication(engine, []);
      ledger = new Ledger(fixture.database);
      postId = (await fixture.createPost("2026-11-01T10:00:00Z", uids)).id;
      await fixture.database.query(
        `INSERT INTO syndication_targets (post_id, target_uid, state, attempts, idempotency_key, permanent,
             next_attempt_at)
           VALUES ($1::bigint, $2, 'failed', 1, 'key-1', false, now() + interval '1 hour'),
                  ($1::bigint, $3, 'failed', 1, 'key-2', true, NULL),
                  ($1::bigint, $4, 'unknown', 1, 'key-3', false, NULL)`,
        [postId, waiting, refused, unknown],
      );
    });
    after(() => fixture.close());

    const request = (): PostClaimRequest => ({
      postId,
      holder: "instance",
      runId: null,
      trigger: "batch",
      targets: uids.map((targetUid) => ({ targetUid, idempotencyKey: "new-key" })),
    });

    it("a claim that does not say force takes none of them", async () => {
      assert.equal((await ledger.claimPost(request())).size, 0);
      for (const uid of uids)
        assert.equal((await ledgerRow(fixture.database, postId, uid))?.attempts, 1, uid);
    });

    it("a forced claim takes them all", async () => {
      const claims = await ledger.claimPost({ ...request(), trigger: "manual", force: true });
      assert.deepEqual([...claims.keys()].sort(), [...uids].sort());
      for (const uid of uids)
        assert.equal((await ledgerRow(fixture.database, postId, uid))?.state, "sending");
    });
  });
