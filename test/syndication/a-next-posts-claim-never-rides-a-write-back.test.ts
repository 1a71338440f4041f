// Why a batch's next post, when its claim rides the previous post's write-back (decision 0075), is
// read back by its tokens when that write-back throws (decision 0070's hazard). A statement run
// alongside a write-back (PostSource.updateAlongside, decision 0068) can be committed while the
// write-back throws: the post's row is gone, its UPDATE finds nothing, and its RETURNING, the only way
// the core reads what its expressions did, returns nothing. Outcomes survive that (recorded again,
// they change nothing twice); a claim would not, unread: its rows would stay `sending` under tokens
// nobody holds, never sent, and the next run would make them `unknown` for the user. The first case
// shows the mechanism with the ledger's own statements; the second that a batch whose post vanishes
// while it is sent still sends the next.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { PostNotFoundError } from "../../src/contract/posts.ts";
import { Ledger } from "../../src/syndication/ledger/ledger.ts";
import { engines } from "../helpers/databases.ts";
import {
  collect,
  deferred,
  gated,
  ledgerRow,
  openSyndication,
  type SyndicationFixture,
  TestTarget,
} from "./syndication-fixture.ts";

const copies = "https://copies.example/@me";
const slow = "https://slow.example/@me";

for (const engine of engines) {
  describe(`a next post's claim never rides a write-back (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    let ledger: Ledger;
    before(async () => {
      fixture = await openSyndication(engine, [new TestTarget(copies), new TestTarget(slow)]);
      ledger = new Ledger(fixture.database);
    });
    after(() => fixture.close());

    it("a write-back whose post is gone throws, yet the statements beside it are committed", async () => {
      const gone = await fixture.createPost("2024-01-01T00:00:00Z", [copies]);
      const other = await fixture.createPost("2024-01-01T00:01:00Z", [copies]);
      const claims = await ledger.claimPost({
        postId: other.id,
        targets: [{ targetUid: copies, idempotencyKey: "key" }],
        holder: "test",
        runId: null,
        trigger: "batch",
      });
      const claim = claims.get(copies);
      assert.ok(claim);
      await fixture.database.query("DELETE FROM posts WHERE id = $1::bigint", [gone.id]);
      await assert.rejects(
        fixture.posts.updateAlongside(
          gone.url,
          { add: { syndication: ["https://copies.example/@me/1"] } },
          ledger.outcomesStatement({
            postId: other.id,
            outcomes: [
              {
                kind: "syndicated",
                claim,
                url: "https://copies.example/@me/2",
                digest: null,
                thread: null,
                writtenBack: false,
              },
            ],
            writtenBack: [],
          }),
        ),
        PostNotFoundError,
      );
      // Committed, though the caller was told nothing of it: a claim here would be a claim lost.
      const row = await ledgerRow(fixture.database, other.id, copies);
      assert.equal(row?.state, "syndicated");
      assert.equal(row?.url, "https://copies.example/@me/2");
    });

    it("a batch whose post vanishes while it is sent still claims and sends the next post", async () => {
      const [, slowTarget] = fixture.targets;
      assert.ok(slowTarget);
      const gate = deferred();
      slowTarget.behaviour = gated(gate.promise, slow);
      const vanishing = await fixture.createPost("2024-02-01T00:00:00Z", [slow]);
      const next = await fixture.createPost("2024-02-01T00:01:00Z", [copies, slow]);
      const run = await fixture.syndication.runs.startBatch("batch");
      const results = collect(run);
      await slowTarget.called.promise;
      // Gone while its target answers: its write-back finds no row (its ledger rows go with it).
      await fixture.database.query("DELETE FROM posts WHERE id = $1::bigint", [vanishing.id]);
      gate.resolve();
      const { results: reported } = await results;
      // The vanished post's copy exists: reported so, its write-back having found no row.
      const gone = reported.find((result) => result.url === vanishing.url);
      assert.deepEqual(
        gone?.targets.map((target) => [target.uid, target.status]),
        [[slow, "syndicated"]],
      );
      assert.equal(await fixture.posts.findById(vanishing.id), null);
      const sent = reported.find((result) => result.url === next.url);
      assert.ok(sent, JSON.stringify(reported));
      assert.deepEqual(
        sent.targets.map((target) => [target.uid, target.status]),
        [
          [copies, "syndicated"],
          [slow, "syndicated"],
        ],
      );
      for (const uid of [copies, slow])
        assert.equal((await ledgerRow(fixture.database, next.id, uid))?.state, "syndicated");
      const { rows } = await fixture.database.query<{ sending: number }>(
        "SELECT count(*)::int AS sending FROM syndication_targets WHERE state = 'sending'",
      );
      assert.equal(rows[0]?.sending, 0, "no row is left claimed and unsent");
    });
  });
}
