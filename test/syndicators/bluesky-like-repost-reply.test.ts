import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import { type FakePds, startFakePds } from "../fakes/bluesky-pds.ts";
import { callOptions, note, publication } from "./fixtures.ts";

const bobDid = "did:plc:bob00000000000000000000";

describe("Bluesky: likes, reposts and replies of Bluesky posts", () => {
  let pds: FakePds;
  let syndicator: BlueskySyndicator;
  const reaction = (fields: Record<string, unknown>) => ({
    type: "entry",
    url: "https://example.org/likes/1/",
    published: "2024-05-01T10:00:00.000Z",
    ...fields,
  });
  const created = (collection: string) => pds.records.filter((record) => record.collection === collection);

  before(async () => {
    pds = await startFakePds({
      handle: "alice.example.com",
      password: "pw",
      knownHandles: { "bob.example.net": bobDid },
    });
    syndicator = new BlueskySyndicator({ handle: "alice.example.com", password: "pw", serviceUrl: pds.url });
  });
  after(() => pds.close());

  it("a like of a bsky.app post (named by handle) likes it by strong reference and returns the post's page", async () => {
    const liked = pds.seedRecord(bobDid, "app.bsky.feed.post", "3kliked000000", { text: "Like me" });
    const url = await syndicator.syndicate(
      reaction({ "like-of": ["https://bsky.app/profile/bob.example.net/post/3kliked000000"] }),
      publication,
      callOptions(),
    );
    assert.equal(url, `https://bsky.app/profile/${bobDid}/post/3kliked000000`);
    const [like] = created("app.bsky.feed.like");
    assert.deepEqual(like?.value.subject, { uri: liked.uri, cid: liked.cid });
    assert.equal(created("app.bsky.feed.post").length, 0, "no post was made");
  });

  it("a repost of a post named by DID reposts it; sent twice with one key, it reposts once", async () => {
    const reposted = pds.seedRecord(bobDid, "app.bsky.feed.post", "3kreposted000", { text: "Share me" });
    const post = reaction({ "repost-of": [`https://bsky.app/profile/${bobDid}/post/3kreposted000`] });
    const first = await syndicator.syndicate(post, publication, callOptions("repost-key"));
    const second = await syndicator.syndicate(post, publication, callOptions("repost-key"));
    assert.equal(first, `https://bsky.app/profile/${bobDid}/post/3kreposted000`);
    assert.equal(second, first);
    const reposts = created("app.bsky.feed.repost");
    assert.equal(reposts.length, 1);
    assert.deepEqual(reposts[0]?.value.subject, { uri: reposted.uri, cid: reposted.cid });
  });

  it("a reply names its parent and the thread's root, and is a post with its own page", async () => {
    const root = pds.seedRecord(bobDid, "app.bsky.feed.post", "3kroot0000000", { text: "Thread" });
    const parent = pds.seedRecord(bobDid, "app.bsky.feed.post", "3kparent00000", {
      text: "In the thread",
      reply: { root: { uri: root.uri, cid: root.cid }, parent: { uri: root.uri, cid: root.cid } },
    });
    const url = await syndicator.syndicate(
      note({ "in-reply-to": ["https://bsky.app/profile/bob.example.net/post/3kparent00000"] }),
      publication,
      callOptions(),
    );
    const reply = created("app.bsky.feed.post").at(-1);
    assert.equal(url, `https://bsky.app/profile/${pds.did}/post/${reply?.rkey}`);
    assert.deepEqual(reply?.value.reply, {
      root: { uri: root.uri, cid: root.cid },
      parent: { uri: parent.uri, cid: parent.cid },
    });
  });

  it("a reply to a thread's first post names it as both root and parent", async () => {
    const first = pds.seedRecord(bobDid, "app.bsky.feed.post", "3kfirst000000", { text: "First" });
    await syndicator.syndicate(
      note({ "in-reply-to": [`https://bsky.app/profile/${bobDid}/post/3kfirst000000`] }),
      publication,
      callOptions(),
    );
    const ref = { uri: first.uri, cid: first.cid };
    assert.deepEqual(created("app.bsky.feed.post").at(-1)?.value.reply, { root: ref, parent: ref });
  });

  for (const [name, url, message] of [
    [
      "a post elsewhere than Bluesky",
      "https://mastodon.example/@bob/1",
      "Bluesky: can only like Bluesky posts (https://bsky.app/profile/…/post/…), not https://mastodon.example/@bob/1; remove Bluesky from this post's targets",
    ],
    [
      "an unknown handle",
      "https://bsky.app/profile/nobody.example.org/post/3k",
      "Bluesky: cannot like https://bsky.app/profile/nobody.example.org/post/3k: no account has the handle nobody.example.org",
    ],
    [
      "a deleted post",
      `https://bsky.app/profile/${bobDid}/post/3kgone0000000`,
      `Bluesky: cannot like https://bsky.app/profile/${bobDid}/post/3kgone0000000: the post does not exist or was deleted`,
    ],
  ] as const) {
    it(`refuses a like of ${name} for good, saying why`, async () => {
      const before = pds.records.length;
      await assert.rejects(syndicator.syndicate(reaction({ "like-of": [url] }), publication, callOptions()), {
        message,
        permanent: true,
      });
      assert.equal(pds.records.length, before);
    });
  }
});
