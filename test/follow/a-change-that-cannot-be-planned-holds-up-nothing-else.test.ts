// Decision 0028: working out what a changed post's copies need can fail for one post (its target's
// preview throws on what the post now holds). That post's change is kept for the next run; the
// other changed posts are followed, and the posts awaiting their first send are sent, in the same run.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { CopyChangeOptions, PostProperties, Publication } from "../../src/contract/syndicator.ts";
import { engines } from "../helpers/databases.ts";
import {
  collect,
  contentPreview,
  openSyndication,
  type SyndicationFixture,
  TestTarget,
} from "../syndication/syndication-fixture.ts";

/** A target whose copies follow their post, and whose preview cannot read a post that says "boom". */
class FragileTarget extends TestTarget {
  readonly updates: string[] = [];
  preview(properties: PostProperties) {
    if (String(properties.content).includes("boom")) throw new Error("This preview cannot read it");
    return contentPreview(properties);
  }
  async update(_properties: PostProperties, _publication: Publication, options: CopyChangeOptions) {
    this.updates.push(options.url);
  }
}

for (const engine of engines) {
  describe(`a change that cannot be planned holds up nothing else (${engine.name})`, () => {
    let fixture: SyndicationFixture<FragileTarget>;
    const target = new FragileTarget("https://fragile.example/@me");
    before(async () => {
      fixture = await openSyndication(engine, [target]);
    });
    after(() => fixture.close());

    it("follows the other post and sends the new one; the failed change waits for the next run", async () => {
      const fragile = await fixture.createPost("2026-02-01T00:00:00Z", [target.info.uid]);
      const sound = await fixture.createPost("2026-02-02T00:00:00Z", [target.info.uid]);
      await collect(await fixture.syndication.runs.startBatch("manual"));
      assert.equal(target.calls.length, 2);

      await fixture.posts.update(fragile.url, { replace: { content: ["boom"] } });
      await fixture.posts.update(sound.url, { replace: { content: ["Edited"] } });
      const fresh = await fixture.createPost("2026-02-03T00:00:00Z", [target.info.uid]);
      const { summary } = await collect(await fixture.syndication.runs.startBatch("manual"));

      assert.equal(target.updates.length, 1, "the sound post's copy is updated");
      assert.equal(target.callsFor(fresh.url).length, 1, "the new post is sent");
      assert.equal(summary.syndicated, 1);
      const { rows } = await fixture.database.query<{ post_id: string }>(
        "SELECT post_id::text AS post_id FROM syndication_post_changes",
      );
      assert.deepEqual(
        rows.map((row) => row.post_id),
        [fragile.id],
        "the change that failed is kept for the next run",
      );
    });
  });
}
