// Decision 0028: two instances sharing one PostgreSQL database, both asked at the same moment to carry
// out the same updates and deletes of copies (a user's retry reaching each of them), send each
// once: the follow-up is claimed by one conditional statement, like a send.
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

/** A target whose copies follow their post; each change answers 503 while `down`. */
class FollowingTarget extends TestTarget {
  down = true;
  readonly updates: string[] = [];
  readonly deletes: string[] = [];
  readonly preview = contentPreview;
  async update(_properties: PostProperties, _publication: Publication, options: CopyChangeOptions) {
    await this.change(this.updates, options.url);
  }
  async delete(_properties: PostProperties, _publication: Publication, options: CopyChangeOptions) {
    await this.change(this.deletes, options.url);
  }
  private async change(into: string[], url: string) {
    // Long enough for the other instance's claim to meet this one's.
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (this.down) throw Object.assign(new Error("503 Service Unavailable"), { status: 503 });
    into.push(url);
  }
}

const POSTS = 8;

for (const engine of engines.filter((candidate) => candidate.name === "postgres")) {
  describe("two instances on PostgreSQL carry out each follow-up once", () => {
    let fixture: SyndicationFixture<FollowingTarget>;
    const target = new FollowingTarget("https://follow.example/@me");
    before(async () => {
      fixture = await openSyndication(engine, [target], { retry: { baseMs: 60_000, maxMs: 60_000 } });
    });
    after(async () => {
      await fixture.close();
    });

    it("updates and deletes each copy once when both instances retry at the same moment", async () => {
      const posts = [];
      for (let i = 0; i < POSTS; i += 1)
        posts.push(await fixture.createPost(`2026-01-0${i + 1}T00:00:00Z`, [target.info.uid]));
      await collect(await fixture.syndication.runs.startBatch("manual"));
      assert.equal(target.calls.length, POSTS);
      const edited = posts.slice(0, POSTS / 2);
      const deleted = posts.slice(POSTS / 2);
      for (const post of edited) await fixture.posts.update(post.url, { replace: { content: ["Edited"] } });
      for (const post of deleted) await fixture.posts.delete(post.url);
      // The batch works out the follow-ups; the target refuses them all for now.
      await collect(await fixture.syndication.runs.startBatch("manual"));
      assert.equal(target.updates.length + target.deletes.length, 0);

      target.down = false;
      const other = fixture.instance({ holder: "other-instance" });
      await Promise.all(
        posts.flatMap((post) => [
          fixture.syndication.runs.followPost(post.url, "manual", { retryFailed: true }),
          other.runs.followPost(post.url, "manual", { retryFailed: true }),
        ]),
      );
      assert.equal(target.updates.length, POSTS / 2, "one update per edited post");
      assert.equal(new Set(target.updates).size, POSTS / 2);
      assert.equal(target.deletes.length, POSTS / 2, "one delete per deleted post");
      assert.equal(new Set(target.deletes).size, POSTS / 2);
    });
  });
}
