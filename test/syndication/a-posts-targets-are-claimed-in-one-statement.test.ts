// All the targets of a post that may be sent are claimed in one statement (decision 0063), not one
// statement each: counted through the wrapper the bench counts with (bench/lib/query-timer.ts), on
// an instance that shares the fixture's database. Every target is still claimed, sent once and
// recorded, and a target whose row was meanwhile taken by another claimer is still refused alone.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { QueryTimer } from "../../bench/lib/query-timer.ts";
import { Ledger } from "../../src/syndication/ledger/ledger.ts";
import { Syndication } from "../../src/syndication/syndication.ts";
import { engines } from "../helpers/databases.ts";
import {
  ledgerRow,
  openSyndication,
  publication,
  type SyndicationFixture,
  silent,
  TestTarget,
} from "./syndication-fixture.ts";

const uids = ["https://one.example/@me", "https://two.example/@me", "https://three.example/@me"];
const CLAIM = "ledger.claim (INSERT … ON CONFLICT + attempt row)";

for (const engine of engines) {
  describe(`a post's targets are claimed in one statement (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    let counted: Syndication;
    const timer = new QueryTimer();
    const claims = () => timer.report().find((row) => row.kind === CLAIM)?.count ?? 0;
    before(async () => {
      fixture = await openSyndication(
        engine,
        uids.map((uid) => new TestTarget(uid)),
      );
      counted = new Syndication({
        database: timer.wrap(fixture.database),
        posts: fixture.posts,
        syndicators: () => fixture.targets,
        publication,
        logger: silent,
        options: { targetTimeoutMs: 30_000, clock: fixture.clock.now },
      });
    });
    after(async () => {
      await counted.runs.shutdown();
      await fixture.close();
    });

    it("a post naming three targets: one claim statement, and each target sent once", async () => {
      const post = await fixture.createPost("2024-01-01T00:00:00Z", uids);
      timer.reset();
      const result = await counted.runs.syndicatePost(post.url, "manual");
      assert.equal(result.status, "syndicated", JSON.stringify(result));
      assert.equal(claims(), 1, JSON.stringify(timer.report()));
      for (const target of fixture.targets) assert.equal(target.callsFor(post.url).length, 1);
      for (const uid of uids)
        assert.equal((await ledgerRow(fixture.database, post.id, uid))?.state, "syndicated");
    });

    it("a row another claimer holds is refused alone; the others are claimed in the same statement", async () => {
      const post = await fixture.createPost("2024-01-02T00:00:00Z", uids);
      const [taken, ...free] = uids as [string, ...string[]];
      const held = await new Ledger(fixture.database).claim({
        postId: post.id,
        targetUid: taken,
        idempotencyKey: "held-elsewhere",
        holder: "another-instance",
        runId: null,
        trigger: "manual",
      });
      assert.ok(held);
      timer.reset();
      const result = await counted.runs.syndicatePost(post.url, "manual");
      assert.equal(claims(), 1, JSON.stringify(timer.report()));
      const byUid = new Map(result.targets.map((target) => [target.uid, target.status]));
      assert.equal(byUid.get(taken), "skipped");
      for (const uid of free) assert.equal(byUid.get(uid), "syndicated");
      assert.equal((await ledgerRow(fixture.database, post.id, taken))?.state, "sending");
    });
  });
}
