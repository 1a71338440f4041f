import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import { recordKeyFor, recordKeyRange } from "../../src/syndicators/bluesky/record-key.ts";
import { type FakePds, startFakePds } from "../fakes/bluesky-pds.ts";
import { callOptions, changeOptions, note, publication } from "./fixtures.ts";

const bobDid = "did:plc:bob00000000000000000000";
const post = "app.bsky.feed.post";
/** A record key as the Bluesky app makes it (a TID of today), outside possekit's range. */
const appKey = "3m5abcdefgh22";

describe("Bluesky: a copy is deleted with com.atproto.repo.deleteRecord, from this account's repo only", () => {
  let pds: FakePds;
  let syndicator: BlueskySyndicator;
  /** A delete's options: a fresh key each time, as the ledger gives each follow-up its own. */
  const deletes = () => pds.calls.filter((call) => call.nsid === "com.atproto.repo.deleteRecord");
  const reaction = (fields: Record<string, unknown>) => ({
    type: "entry",
    url: "https://example.org/likes/1/",
    published: "2024-05-01T10:00:00.000Z",
    ...fields,
  });
  const stored = (collection: string, rkey: string) =>
    pds.records.find((record) => record.collection === collection && record.rkey === rkey);

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

  it("every record key possekit makes lies in the range a delete searches, and an app's key does not", () => {
    for (let i = 0; i < 2000; i++) {
      const rkey = recordKeyFor(`key-${i}`);
      assert.ok(rkey > recordKeyRange.after && rkey <= recordKeyRange.last, rkey);
    }
    assert.ok(appKey > recordKeyRange.last);
  });

  it("a post copy: its record at://<did>/app.bsky.feed.post/<rkey> is deleted; a second delete succeeds too", async () => {
    const url = await syndicator.syndicate(note(), publication, callOptions());
    const rkey = url.split("/").pop() ?? "";
    assert.ok(stored(post, rkey));
    await syndicator.delete(note(), publication, changeOptions(url));
    assert.equal(stored(post, rkey), undefined, "the record is gone");
    assert.equal(deletes().length, 1);
    await syndicator.delete(note(), publication, changeOptions(url));
    assert.deepEqual(
      deletes().map((call) => call.status),
      [200, 200],
      "the PDS answers a record already gone with success",
    );
  });

  it("a post copy named by handle is the same record of this account's repo", async () => {
    const url = await syndicator.syndicate(note(), publication, callOptions());
    const rkey = url.split("/").pop() ?? "";
    await syndicator.delete(
      note(),
      publication,
      changeOptions(`https://bsky.app/profile/alice.example.com/post/${rkey}`),
    );
    assert.equal(stored(post, rkey), undefined);
  });

  it("a like and a repost copy (whose URL is Bob's post): our like or repost is deleted, Bob's post never", async () => {
    pds.seedRecord(bobDid, post, "3kliked000000", { text: "Like me" });
    const page = `https://bsky.app/profile/bob.example.net/post/3kliked000000`;
    // Likes of other posts, made by possekit and in the app, are left alone.
    pds.seedRecord(bobDid, post, "3kother000000", { text: "Other" });
    await syndicator.syndicate(
      reaction({ "like-of": ["https://bsky.app/profile/bob.example.net/post/3kother000000"] }),
      publication,
      callOptions(),
    );
    for (const [property, collection] of [
      ["like-of", "app.bsky.feed.like"],
      ["repost-of", "app.bsky.feed.repost"],
    ] as const) {
      const reacted = reaction({ [property]: [page] });
      const url = await syndicator.syndicate(reacted, publication, callOptions());
      const before = pds.records.filter((record) => record.collection === collection).length;
      await syndicator.delete(reacted, publication, changeOptions(url));
      const left = pds.records.filter((record) => record.collection === collection);
      assert.equal(left.length, before - 1, `one ${collection} deleted`);
      assert.ok(
        left.every(
          (record) =>
            (record.value.subject as { uri: string }).uri !== `at://${bobDid}/${post}/3kliked000000`,
        ),
      );
    }
    assert.ok(
      deletes().every((call) => call.status === 200),
      "no delete was ever sent for Bob's repo",
    );
    assert.equal(pds.records.filter((record) => record.collection === "app.bsky.feed.like").length, 1);
  });

  it("a like copy whose like is gone already (a lost answer's retry): deleted, and nothing else is touched", async () => {
    pds.seedRecord(bobDid, post, "3kliked000001", { text: "Like me" });
    const like = reaction({ "like-of": ["https://bsky.app/profile/bob.example.net/post/3kliked000001"] });
    const url = await syndicator.syndicate(like, publication, callOptions());
    await syndicator.delete(like, publication, changeOptions(url));
    const sent = deletes().length;
    await syndicator.delete(like, publication, changeOptions(url));
    assert.equal(deletes().length, sent, "no second deleteRecord: nothing of ours refers to the post");
  });

  it("someone else's post that this account never liked: nothing deleted, not even our record at the same key", async () => {
    // Bob's post was made by possekit too (its key is in the range), and so was one of ours, at the same key.
    const rkey = recordKeyFor("a post of Bob's");
    pds.seedRecord(bobDid, post, rkey, { text: "Bob's" });
    pds.records.push({
      uri: `at://${pds.did}/${post}/${rkey}`,
      cid: "bafyreisamekey",
      collection: post,
      rkey,
      value: { $type: post, text: "Ours, same key", createdAt: new Date().toISOString() },
    });
    const sent = deletes().length;
    for (const properties of [
      note(),
      reaction({ "like-of": [`https://bsky.app/profile/${bobDid}/post/${rkey}`] }),
    ]) {
      await syndicator.delete(
        properties,
        publication,
        changeOptions(`https://bsky.app/profile/${bobDid}/post/${rkey}`),
      );
      await syndicator.delete(
        properties,
        publication,
        changeOptions(`https://bsky.app/profile/bob.example.net/post/${rkey}`),
      );
    }
    assert.equal(deletes().length, sent, "no deleteRecord was sent");
    assert.ok(stored(post, rkey), "our record at that key is kept");
  });

  it("finds our like past the first page of 100 likes possekit made", async () => {
    for (let i = 0; i < 130; i++) {
      pds.records.push({
        uri: `at://${pds.did}/app.bsky.feed.like/${recordKeyFor(`filler-${i}`)}`,
        cid: `bafyreifiller${i}`,
        collection: "app.bsky.feed.like",
        rkey: recordKeyFor(`filler-${i}`),
        value: {
          $type: "app.bsky.feed.like",
          subject: { uri: `at://${bobDid}/${post}/filler${i}`, cid: "x" },
        },
      });
    }
    pds.seedRecord(bobDid, post, "3kliked000002", { text: "Like me" });
    // The highest key possekit can make: the like is on the last page read.
    pds.records.push({
      uri: `at://${pds.did}/app.bsky.feed.like/${recordKeyRange.last}`,
      cid: "bafyreilast",
      collection: "app.bsky.feed.like",
      rkey: recordKeyRange.last,
      value: {
        $type: "app.bsky.feed.like",
        subject: { uri: `at://${bobDid}/${post}/3kliked000002`, cid: "x" },
      },
    });
    const liked = `https://bsky.app/profile/${bobDid}/post/3kliked000002`;
    await syndicator.delete(reaction({ "like-of": [liked] }), publication, changeOptions(liked));
    assert.equal(stored("app.bsky.feed.like", recordKeyRange.last), undefined);
    assert.equal(pds.records.length, 130);
  });

  it("a repost of one's own post made in the app: the repost is deleted, the post kept", async () => {
    pds.records.push({
      uri: `at://${pds.did}/${post}/${appKey}`,
      cid: "bafyreiownpost",
      collection: post,
      rkey: appKey,
      value: { $type: post, text: "Mine", createdAt: new Date().toISOString() },
    });
    const repost = reaction({ "repost-of": [`https://bsky.app/profile/alice.example.com/post/${appKey}`] });
    const url = await syndicator.syndicate(repost, publication, callOptions());
    assert.equal(url, `https://bsky.app/profile/${pds.did}/post/${appKey}`);
    await syndicator.delete(repost, publication, changeOptions(url));
    assert.ok(stored(post, appKey), "the post made in the app is kept");
    assert.equal(pds.records.filter((record) => record.collection === "app.bsky.feed.repost").length, 0);
    await syndicator.delete(repost, publication, changeOptions(url));
    assert.ok(stored(post, appKey), "a repeated delete does not take the post instead");
  });

  it("a URL that is not a Bluesky post's, or names an unknown handle: a permanent refusal", async () => {
    for (const url of [
      "https://mastodon.example/@alice/1",
      "https://bsky.app/profile/nobody.example.org/post/3kliked000000",
    ]) {
      await assert.rejects(
        syndicator.delete(note(), publication, changeOptions(url)),
        (error: unknown) => error instanceof SyndicationError && error.permanent,
        url,
      );
    }
  });

  it("an expired session is renewed, and a 429 is retried later, as for a send", async () => {
    const url = await syndicator.syndicate(note(), publication, callOptions());
    pds.expireSessions();
    pds.setBehaviour({
      nsid: "com.atproto.repo.deleteRecord",
      status: 429,
      body: { error: "RateLimitExceeded", message: "Rate Limit Exceeded" },
      times: 1,
    });
    await assert.rejects(
      syndicator.delete(note(), publication, changeOptions(url)),
      (error: unknown) => error instanceof SyndicationError && !error.permanent && error.status === 429,
    );
    const refreshes = pds.refreshes.length;
    await syndicator.delete(note(), publication, changeOptions(url));
    assert.equal(pds.refreshes.length, refreshes + 1, "the expired session was refreshed");
    assert.equal(stored(post, url.split("/").pop() ?? ""), undefined);
  });
});
