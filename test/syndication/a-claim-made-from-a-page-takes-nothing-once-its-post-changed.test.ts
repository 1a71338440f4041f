// A batch's claim carries its post as the page listed it (asListed, decision 0080) and takes the
// post's targets only while the post is still so, compared in the claim's own statement: a post
// edited since is claimed by nothing (the batch reads it again), and the claim made from the post as
// it now is takes it. A claim made without a page compares nothing but the post's deletion.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Post } from "../../src/contract/posts.ts";
import { asListed } from "../../src/syndication/ledger/as-listed.ts";
import type { PostClaimRequest } from "../../src/syndication/ledger/claims.ts";
import { Ledger } from "../../src/syndication/ledger/ledger.ts";
import { engines } from "../helpers/databases.ts";
import { openSyndication, type SyndicationFixture } from "./syndication-fixture.ts";

const target = "https://a.example/@me";
const noWords = { pageTexts: new Map<string, string>(), threadChoices: new Map<string, boolean>() };

for (const engine of engines)
  describe(`a claim made from a page takes nothing once its post changed (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    let ledger: Ledger;
    before(async () => {
      fixture = await openSyndication(engine, []);
      ledger = new Ledger(fixture.database);
    });
    after(() => fixture.close());

    const request = (post: Post, listed?: string): PostClaimRequest => ({
      postId: post.id,
      holder: "batch-instance",
      runId: null,
      trigger: "batch",
      targets: [{ targetUid: target, idempotencyKey: "key" }],
      ...(listed === undefined ? {} : { asListed: listed }),
    });
    const read = async (post: Post) => {
      const found = await fixture.posts.findById(post.id);
      assert.ok(found);
      return found;
    };

    it("a post edited since its page read it is claimed by nothing; as it now is, it is claimed", async () => {
      const post = await fixture.createPost("2026-11-01T10:00:00Z", [target]);
      const listed = asListed(await read(post), noWords);
      await fixture.posts.update(post.url, { replace: { content: ["Edited while the batch ran"] } });
      assert.equal((await ledger.claimPost(request(post, listed))).size, 0);
      const again = asListed(await read(post), noWords);
      assert.equal((await ledger.claimPost(request(post, again))).size, 1);
    });

    it("a claim made without a page takes the edited post", async () => {
      const post = await fixture.createPost("2026-11-02T10:00:00Z", [target]);
      await fixture.posts.update(post.url, { replace: { content: ["Edited before the claim"] } });
      assert.equal((await ledger.claimPost(request(post))).size, 1);
    });
  });
