// A like's and a repost's copies have the same URL as the post they are about, so the deleted post
// says which record is its copy: a like post's delete takes only our like of that post, a repost
// post's only our repost, a post's only our post record. Only two records of the same kind stay
// ambiguous, and are refused rather than guessed.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import type { PostProperties } from "../../src/contract/syndicator.ts";
import { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import { type FakePds, startFakePds } from "../fakes/bluesky-pds.ts";
import { callOptions, note, publication } from "./fixtures.ts";

const bobDid = "did:plc:bob00000000000000000000";
const post = "app.bsky.feed.post";
const like = "app.bsky.feed.like";
const repost = "app.bsky.feed.repost";

describe("Bluesky: deleting a like post deletes only our like, a repost post only our repost", () => {
  let pds: FakePds;
  let syndicator: BlueskySyndicator;
  const change = (url: string) => ({ ...callOptions(undefined, 20_000), url });
  const send = (properties: PostProperties) =>
    syndicator.syndicate(properties, publication, callOptions(undefined, 20_000));
  const reaction = (fields: Record<string, unknown>): PostProperties => ({
    type: "entry",
    url: "https://example.org/likes/1/",
    published: "2024-05-01T10:00:00.000Z",
    ...fields,
  });
  const inCollection = (collection: string) =>
    pds.records.filter((record) => record.collection === collection);
  const deletes = () => pds.calls.filter((call) => call.nsid === "com.atproto.repo.deleteRecord");

  before(async () => {
    pds = await startFakePds({
      handle: "alice.example.com",
      password: "pw",
      knownHandles: { "bob.example.net": bobDid },
    });
    syndicator = new BlueskySyndicator({ handle: "alice.example.com", password: "pw", serviceUrl: pds.url });
  });
  beforeEach(() => {
    pds.setBehaviour(null);
    pds.records.length = 0;
  });
  after(() => pds.close());

  /** Bob's post, liked and reposted by this account through two posts; both copies have its URL. */
  async function likedAndReposted() {
    pds.seedRecord(bobDid, post, "3kboth0000000", { text: "Worth both" });
    const page = "https://bsky.app/profile/bob.example.net/post/3kboth0000000";
    const liking = reaction({ "like-of": [page] });
    const reposting = reaction({ "repost-of": [page] });
    const copy = await send(liking);
    assert.equal(await send(reposting), copy);
    assert.equal(inCollection(like).length, 1);
    assert.equal(inCollection(repost).length, 1);
    return { liking, reposting, copy };
  }

  it("the account liked and reposted a post: deleting the like post deletes only the like record", async () => {
    const { liking, reposting, copy } = await likedAndReposted();
    const sent = deletes().length;
    await syndicator.delete(liking, publication, change(copy));
    assert.equal(inCollection(like).length, 0, "the like is deleted");
    assert.equal(inCollection(repost).length, 1, "the repost made through the other post is kept");
    await syndicator.delete(reposting, publication, change(copy));
    assert.equal(inCollection(repost).length, 0);
    assert.equal(deletes().length, sent + 2, "one deleteRecord for each: nothing else was touched");
  });

  it("deleting the repost post deletes only the repost record, the like is kept", async () => {
    const { liking, reposting, copy } = await likedAndReposted();
    await syndicator.delete(reposting, publication, change(copy));
    assert.equal(inCollection(repost).length, 0, "the repost is deleted");
    assert.equal(inCollection(like).length, 1, "the like made through the other post is kept");
    await syndicator.delete(liking, publication, change(copy));
    assert.equal(inCollection(like).length, 0);
  });

  it("our own post, liked through another post: the like post takes only the like, the post only the post", async () => {
    const url = await send(note());
    const liking = reaction({ "like-of": [url] });
    assert.equal(await send(liking), url);
    await syndicator.delete(liking, publication, change(url));
    assert.equal(inCollection(like).length, 0, "the like is deleted");
    assert.equal(inCollection(post).length, 1, "the post is the other post's copy: kept");

    await send(liking);
    await syndicator.delete(note(), publication, change(url));
    assert.equal(inCollection(post).length, 0, "the post record is deleted");
    assert.equal(inCollection(like).length, 1, "the like made through the other post is kept");
  });

  it("two likes of ours of one post, or a post no longer a like with both a like and a repost: refused, nothing deleted", async () => {
    const { liking, copy } = await likedAndReposted();
    await send(liking);
    assert.equal(inCollection(like).length, 2);
    const count = pds.records.length;
    const sent = deletes().length;
    for (const properties of [liking, note()]) {
      await assert.rejects(
        syndicator.delete(properties, publication, change(copy)),
        (error: unknown) =>
          error instanceof SyndicationError && error.permanent && /more than one/.test(error.message),
      );
    }
    assert.equal(pds.records.length, count);
    assert.equal(deletes().length, sent);
  });
});
