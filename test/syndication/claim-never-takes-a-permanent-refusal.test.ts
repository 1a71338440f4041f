// The ledger's claim, asked directly (decision 0031): a row refused permanently is never claimed by a
// run, however due it looks, and only a user's retry (force) takes it. The claim's SQL decides this
// on its own: syndicatePost's pre-check in JavaScript hides it, and only a race would show it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Ledger } from "../../src/syndication/ledger/ledger.ts";
import { engines } from "../helpers/databases.ts";
import { ledgerRow, openSyndication, type SyndicationFixture } from "./syndication-fixture.ts";

const target = "https://refuses.example/@me";

for (const engine of engines) {
  describe(`the claim's SQL skips rows refused permanently (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    let ledger: Ledger;
    before(async () => {
      fixture = await openSyndication(engine, []);
      ledger = new Ledger(fixture.database);
    });
    after(() => fixture.close());

    const claim = (postId: string, force: boolean) =>
      ledger.claim({
        postId,
        targetUid: target,
        idempotencyKey: "key",
        holder: "test",
        runId: null,
        trigger: "batch",
        force,
      });

    it("a failed row marked permanent, due now, is not claimed; a forced retry claims it", async () => {
      const post = await fixture.createPost("2024-01-01T00:00:00Z", [target]);
      await fixture.database.query(
        `INSERT INTO syndication_targets (post_id, target_uid, state, attempts, idempotency_key, permanent,
             next_attempt_at, last_error)
           VALUES ($1::bigint, $2, 'failed', 1, 'key', true, NULL, 'Refuses: 401 The access token is invalid')`,
        [post.id, target],
      );
      assert.equal(await claim(post.id, false), null);
      const untouched = await ledgerRow(fixture.database, post.id, target);
      assert.equal(untouched?.state, "failed");
      assert.equal(untouched?.attempts, 1);

      const forced = await claim(post.id, true);
      assert.ok(forced, "a user's retry claims it");
      assert.equal(forced.entry.state, "sending");
      assert.equal((await ledgerRow(fixture.database, post.id, target))?.attempts, 2);
    });

    it("the same row without the permanent flag is claimed (the refusal above is the flag's doing)", async () => {
      const post = await fixture.createPost("2024-01-02T00:00:00Z", [target]);
      await fixture.database.query(
        `INSERT INTO syndication_targets (post_id, target_uid, state, attempts, idempotency_key, permanent,
           next_attempt_at)
         VALUES ($1::bigint, $2, 'failed', 1, 'key', false, NULL)`,
        [post.id, target],
      );
      assert.ok(await claim(post.id, false));
    });
  });
}
