// A like's and a boost's copies have the same URL, the status they are about, so deleting one post
// must undo only what that post did: the account that favourited and boosted a status through two
// posts keeps the boost when the like post is deleted, and the favourite when the boost post is.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";

import { callOptions, changeOptions, note, publication } from "./fixtures.ts";

describe("Mastodon: deleting a like post undoes only the favourite, a boost post only the boost", () => {
  let sandbox: MastodonSandbox;
  let syndicator: MastodonSyndicator;

  before(async () => {
    sandbox = await startMastodonSandbox({ accessToken: "token" });
    syndicator = new MastodonSyndicator({ url: sandbox.url, user: "demo", accessToken: "token" });
  });
  beforeEach(() => sandbox.clearBehaviour());
  after(() => sandbox.close());

  /** A status favourited and boosted through two posts; both copies have the same URL. */
  async function likedAndBoosted(remoteUrl?: string) {
    const status = sandbox.addStatus("Worth both", remoteUrl ? { remoteUrl } : {});
    const like = note({ "like-of": [status.url] });
    const boost = note({ "repost-of": [status.url] });
    const likeCopy = await syndicator.syndicate(like, publication, callOptions());
    const boostCopy = await syndicator.syndicate(boost, publication, callOptions());
    assert.equal(likeCopy, boostCopy);
    assert.ok(status.favourited && status.reblogged);
    return { status, like, boost, copy: likeCopy };
  }
  const undos = () => sandbox.requests.filter((r) => /\/un(favourite|reblog)$/.test(r.path)).length;

  it("deleting the like post leaves the boost; deleting the boost post then undoes it", async () => {
    const { status, like, boost, copy } = await likedAndBoosted();
    await syndicator.delete(like, publication, changeOptions(copy));
    assert.equal(status.favourited, false, "the favourite is undone");
    assert.equal(status.reblogged, true, "the boost made through the other post is kept");
    assert.equal(
      sandbox.reblogs.filter((r) => r.reblogOf === status).length,
      1,
      "the boost is still on the account",
    );
    await syndicator.delete(boost, publication, changeOptions(copy));
    assert.equal(status.reblogged, false);
    assert.equal(status.deletedAt, null, "someone else's status is never deleted");
  });

  it("deleting the boost post leaves the favourite, for a status of another server too", async () => {
    const { status, like, boost, copy } = await likedAndBoosted("https://elsewhere.example/@bob/1101");
    await syndicator.delete(boost, publication, changeOptions(copy));
    assert.equal(status.reblogged, false, "the boost is undone");
    assert.equal(status.favourited, true, "the favourite made through the other post is kept");
    assert.ok(sandbox.favourites.includes(status.id));
    await syndicator.delete(like, publication, changeOptions(copy));
    assert.equal(status.favourited, false);
  });

  it("a like of one of our own statuses: deleting the like post unfavourites it and keeps the status", async () => {
    const own = note({ content: "Mine, and I like it" });
    const url = await syndicator.syndicate(own, publication, callOptions());
    const like = note({ "like-of": [url] });
    const likeCopy = await syndicator.syndicate(like, publication, callOptions());
    const status = sandbox.statuses.find((s) => s.url === url);
    assert.ok(status?.favourited);
    await syndicator.delete(like, publication, changeOptions(likeCopy));
    assert.equal(status.favourited, false);
    assert.equal(status.deletedAt, null, "the status is the other post's copy: kept");
  });

  it("a post that no longer likes or boosts: its one remaining favourite is undone; both are refused, nothing undone", async () => {
    const single = sandbox.addStatus("Only liked");
    const edited = note({ content: "Was a like" });
    const singleCopy = await syndicator.syndicate(
      note({ "like-of": [single.url] }),
      publication,
      callOptions(),
    );
    await syndicator.delete(edited, publication, changeOptions(singleCopy));
    assert.equal(single.favourited, false);

    const { status, copy } = await likedAndBoosted();
    const before = undos();
    await assert.rejects(
      syndicator.delete(edited, publication, changeOptions(copy)),
      (error: unknown) =>
        error instanceof SyndicationError && error.permanent && /undo the copy/.test(error.message),
    );
    assert.equal(undos(), before, "nothing was undone");
    assert.ok(status.favourited && status.reblogged);
  });
});
