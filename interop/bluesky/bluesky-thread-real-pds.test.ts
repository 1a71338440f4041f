// Decision 0055: a long post sent as a thread to a real Bluesky PDS, in one applyWrites. `possekit
// serve` runs with the Bluesky target's `thread: true`; the records are read back from the PDS: one
// chain (each post's reply names its parent and the root by the CIDs the PDS gave them), createdAt
// one millisecond apart, after an answer lost and a retry exactly as many records as posts, and
// after a write the PDS refused (one record of three spoiled on the way) none at all.
// Decision 0062: replacing a thread leaves exactly the edited thread (the old records deleted in the
// commit that writes the new ones, a repeat making nothing), and deleting the post leaves no record.
// Decision 0064: a thread whose posts were not kept (sent before they were) is found from the send's
// key and deleted whole, in one applyWrites the real PDS takes.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { idempotencyKey } from "../../src/syndication/runs/idempotency-key.ts";
import { threadRecordKey } from "../../src/syndicators/bluesky/bluesky-thread.ts";
import { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import { type PhotoServer, startPhotoServer } from "../../test/fakes/photo-server.ts";
import { type LosingProxy, startLosingProxy } from "./losing-proxy.ts";
import { type Account, type PostRecord, type RealPds, startRealPds } from "./pds.ts";
import { createPostAt, type Possekit, startPossekit, syndicateAt } from "./possekit-beside-the-pds.ts";

const collection = "app.bsky.feed.post";

/** Three paragraphs of about 200 graphemes: three posts of at most 300. */
function threeParagraphs(tag: string): string {
  const paragraph = (n: number) =>
    `${tag} part ${n}: ${"Herons on the canal, cormorants on the posts, a kingfisher on the lock gate. ".repeat(3).trim()}`;
  return [1, 2, 3].map(paragraph).join("\n\n");
}

describe("Bluesky threads against a real PDS", () => {
  let pds: RealPds;
  let proxy: LosingProxy;
  let photos: PhotoServer;
  let possekit: Possekit;
  let account: Account;
  const uid = () => `https://bsky.app/profile/${account.handle}`;

  before(async () => {
    pds = await startRealPds({ rateLimits: false });
    account = await pds.createAccount("heron");
    proxy = await startLosingProxy(pds.url);
    photos = await startPhotoServer();
    possekit = await startPossekit(
      photos,
      {
        plugins: ["@possekit/endpoint-syndicate", "@possekit/syndicator-bluesky"],
        "@possekit/syndicator-bluesky": {
          handle: account.handle,
          serviceUrl: proxy.url,
          thread: true,
          linkCard: false,
          includeCategories: false,
          appendUrl: "never",
        },
      },
      { BLUESKY_PASSWORD: account.appPassword },
    );
  });
  after(async () => {
    await possekit?.server.stop();
    await photos?.close();
    await proxy?.close();
    await pds?.stop();
  });

  const createPost = (content: string) => createPostAt(possekit, { content: [content] }, uid());
  const syndicate = (path: string) => syndicateAt(possekit, path);

  /** The records of the thread tagged `tag`, root first, with the CIDs the PDS holds. */
  async function threadRecords(tag: string) {
    const listed = (await pds.listRecords(account.did, collection)).filter((r) =>
      r.value.text.startsWith(tag),
    );
    const read = await Promise.all(
      listed.map(async ({ uri }) => {
        const rkey = uri.split("/").pop() ?? "";
        return (await pds.getRecord(account.did, collection, rkey)) as {
          uri: string;
          cid: string;
          value: PostRecord;
        };
      }),
    );
    return read.sort((a, b) => a.value.createdAt.localeCompare(b.value.createdAt));
  }

  function assertOneChain(records: { uri: string; cid: string; value: PostRecord }[]) {
    const [root, ...replies] = records;
    assert.ok(root);
    assert.equal(root.value.reply, undefined, "the first post replies to nothing");
    replies.forEach((record, index) => {
      const parent = records[index];
      assert.deepEqual(
        record.value.reply?.parent,
        { uri: parent?.uri, cid: parent?.cid },
        "its parent, by CID",
      );
      assert.deepEqual(record.value.reply?.root, { uri: root.uri, cid: root.cid }, "the root, by CID");
      const gap = Date.parse(record.value.createdAt) - Date.parse(parent?.value.createdAt ?? "");
      assert.equal(gap, 1, "one millisecond after its parent");
    });
  }

  it("a post of three paragraphs is one chain of three records, the copy's URL the first's", async () => {
    const tag = `T${Date.now()}`;
    const post = await createPost(threeParagraphs(tag));
    const result = await syndicate(`?source_url=${encodeURIComponent(post)}`);
    assert.equal(
      result.status,
      "syndicated",
      `${JSON.stringify(result.targets)}\n${possekit.server.output()}`,
    );
    const records = await threadRecords(tag);
    assert.equal(records.length, 3);
    assert.deepEqual(
      records.map((record) => record.value.text),
      threeParagraphs(tag).split("\n\n"),
    );
    assertOneChain(records);
    assert.equal(result.targets[0]?.url?.split("/").pop(), records[0]?.uri.split("/").pop());
    assert.ok(
      proxy.answers.some((answer) => answer.nsid === "com.atproto.repo.applyWrites" && answer.status === 200),
    );
  });

  it("the answer to the applyWrites lost: the retry finds the thread, and the PDS holds exactly three", async () => {
    const tag = `L${Date.now()}`;
    const post = await createPost(threeParagraphs(tag));
    proxy.loseNextAnswer("com.atproto.repo.applyWrites", "com.atproto.repo.getRecord");
    const first = await syndicate(`?source_url=${encodeURIComponent(post)}`);
    assert.notEqual(first.status, "syndicated", JSON.stringify(first));
    assert.equal((await threadRecords(tag)).length, 3, "the lost answer's commit was made");

    const batch = await syndicate("/retry");
    const retried = batch.results?.find((result) => result.url === post);
    assert.equal(retried?.status, "syndicated", `${JSON.stringify(batch)}\n${possekit.server.output()}`);
    const records = await threadRecords(tag);
    assert.equal(records.length, 3, "the resend made no second thread");
    assertOneChain(records);
    assert.equal(retried?.targets[0]?.url?.split("/").pop(), records[0]?.uri.split("/").pop());
  });

  it("a thread the PDS refuses for one bad record leaves no record of it, and the retry writes exactly three", async () => {
    const tag = `R${Date.now()}`;
    const post = await createPost(threeParagraphs(tag));
    // The third record made too long for app.bsky.feed.post (300 graphemes): the PDS checks every
    // record of the applyWrites before it commits any, so the two good ones must not be written.
    proxy.spoilNext("com.atproto.repo.applyWrites", (body) => {
      const writes = (body as { writes: { value: { text: string } }[] }).writes;
      const third = writes[2];
      assert.ok(third, "the applyWrites carries the third post");
      third.value.text = `${third.value.text} ${"x".repeat(400)}`;
      return body;
    });
    const refusalsBefore = proxy.answers.filter((a) => a.nsid === "com.atproto.repo.applyWrites").length;
    const first = await syndicate(`?source_url=${encodeURIComponent(post)}`);
    assert.equal(first.status, "failed", JSON.stringify(first));
    const refused = proxy.answers
      .filter((a) => a.nsid === "com.atproto.repo.applyWrites")
      .slice(refusalsBefore);
    assert.equal(refused.length, 1, "one applyWrites, refused");
    assert.equal(refused[0]?.status, 400);
    assert.match(
      refused[0]?.message ?? "",
      /Invalid app\.bsky\.feed\.post record/,
      `the PDS itself refused the record: ${JSON.stringify(refused[0])}`,
    );
    assert.equal((await threadRecords(tag)).length, 0, "no post of the refused thread is in the repo");

    const batch = await syndicate("/retry");
    const retried = batch.results?.find((result) => result.url === post);
    assert.equal(retried?.status, "syndicated", `${JSON.stringify(batch)}\n${possekit.server.output()}`);
    const records = await threadRecords(tag);
    assert.equal(records.length, 3, "the retry wrote the thread once, whole");
    assertOneChain(records);
  });

  it("Replace the thread: exactly the edited thread is left, one chain; a repeat makes nothing", async () => {
    const tag = `P${Date.now()}`;
    const post = await createPost(threeParagraphs(tag));
    const sent = await syndicate(`?source_url=${encodeURIComponent(post)}`);
    assert.equal(sent.status, "syndicated", JSON.stringify(sent));
    const old = await threadRecords(tag);
    assert.equal(old.length, 3);
    const bluesky = new BlueskySyndicator(
      {
        handle: account.handle,
        serviceUrl: pds.url,
        thread: true,
        linkCard: false,
        includeCategories: false,
        appendUrl: "never",
      },
      { BLUESKY_PASSWORD: account.appPassword },
    );
    const edited = `${threeParagraphs(tag)}\n\n${tag} part 4: and a grebe, diving.`;
    const options = {
      url: sent.targets[0]?.url ?? "",
      idempotencyKey: `replace-${tag}`,
      signal: AbortSignal.timeout(60_000),
      threadPosts: old.map((record) => ({ id: record.uri, url: "" })),
    };
    const publication = { me: `${photos.url}/`, postUrlPattern: "", timezone: "UTC", name: "" };
    const page = await bluesky.replace({ content: [edited] }, publication, options);
    const records = await threadRecords(tag);
    const expected = bluesky.preview({ content: [edited] }, publication).thread?.map((each) => each.text);
    assert.deepEqual(
      records.map((record) => record.value.text),
      expected,
      "exactly the edited thread",
    );
    assert.ok(records.every((record) => !old.some((gone) => gone.uri === record.uri)));
    assertOneChain(records);
    assert.equal(page.split("/").pop(), records[0]?.uri.split("/").pop());

    assert.equal(await bluesky.replace({ content: [edited] }, publication, options), page);
    assert.equal((await threadRecords(tag)).length, records.length, "the repeat made no other");
  });

  it("deleting the post deletes every record of its thread", async () => {
    const tag = `D${Date.now()}`;
    const post = await createPost(threeParagraphs(tag));
    const sent = await syndicate(`?source_url=${encodeURIComponent(post)}`);
    assert.equal(sent.status, "syndicated", JSON.stringify(sent));
    assert.equal((await threadRecords(tag)).length, 3);
    const deleted = await fetch(`${possekit.url}/micropub`, {
      method: "POST",
      headers: { authorization: `Bearer ${possekit.token}`, "content-type": "application/json" },
      body: JSON.stringify({ action: "delete", url: post }),
    });
    assert.equal(deleted.status, 204, await deleted.text());
    await syndicate("");
    assert.deepEqual(
      await threadRecords(tag),
      [],
      `no record of the thread is left\n${possekit.server.output()}`,
    );
  });

  it("a thread whose posts were not kept is found from the send's key and deleted whole", async () => {
    const tag = `K${Date.now()}`;
    const post = await createPost(threeParagraphs(tag));
    const sent = await syndicate(`?source_url=${encodeURIComponent(post)}`);
    assert.equal(sent.status, "syndicated", JSON.stringify(sent));
    const records = await threadRecords(tag);
    assert.equal(records.length, 3);
    const sentKey = idempotencyKey(post, uid());
    assert.deepEqual(
      records.map((record) => record.uri.split("/").pop()),
      [0, 1, 2].map((index) => threadRecordKey(sentKey, index)),
      "each record key from the send's key and the post's place",
    );
    const bluesky = new BlueskySyndicator(
      { handle: account.handle, serviceUrl: pds.url, thread: true, linkCard: false, appendUrl: "never" },
      { BLUESKY_PASSWORD: account.appPassword },
    );
    const publication = { me: `${photos.url}/`, postUrlPattern: "", timezone: "UTC", name: "" };
    // As the host hands a copy sent before its posts were kept: no threadPosts, the send's key.
    await bluesky.delete({ content: [threeParagraphs(tag)] }, publication, {
      url: sent.targets[0]?.url ?? "",
      idempotencyKey: `delete-${tag}`,
      signal: AbortSignal.timeout(60_000),
      sentKey,
    });
    assert.deepEqual(await threadRecords(tag), [], "no record of the thread is left");
  });
});
