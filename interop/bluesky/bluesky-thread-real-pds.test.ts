// Decision 0055: a long post sent as a thread to a real Bluesky PDS, in one applyWrites. `possekit
// serve` runs with the Bluesky target's `thread: true`; the records are read back from the PDS: one
// chain (each post's reply names its parent and the root by the CIDs the PDS gave them), createdAt
// one millisecond apart, and after an answer lost and a retry exactly as many records as posts.
// Decision 0062: replacing a thread leaves exactly the edited thread (the old records deleted in the
// commit that writes the new ones, a repeat making nothing), and deleting the post leaves no record.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { TokenIssuer } from "../../src/server/auth/tokens.ts";
import type { PostResult } from "../../src/syndication/types.ts";
import { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import { type PhotoServer, startPhotoServer } from "../../test/fakes/photo-server.ts";
import { type ChildServer, startChildServer } from "../../test/helpers/child-server.ts";
import { type LosingProxy, startLosingProxy } from "./losing-proxy.ts";
import { type Account, type PostRecord, type RealPds, startRealPds } from "./pds.ts";

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
  let server: ChildServer;
  let account: Account;
  let token: string;
  const uid = () => `https://bsky.app/profile/${account.handle}`;

  before(async () => {
    pds = await startRealPds({ rateLimits: false });
    account = await pds.createAccount("heron");
    proxy = await startLosingProxy(pds.url);
    photos = await startPhotoServer();
    const secret = randomBytes(24).toString("base64url");
    server = await startChildServer({
      secret,
      config: {
        plugins: ["@possekit/endpoint-syndicate", "@possekit/syndicator-bluesky"],
        "@possekit/syndicator-bluesky": {
          handle: account.handle,
          serviceUrl: proxy.url,
          thread: true,
          linkCard: false,
          includeCategories: false,
          appendUrl: "never",
        },
        fetch: { allowPrivate: true },
        publication: { me: photos.url },
      },
      env: { BLUESKY_PASSWORD: account.appPassword },
      startTimeoutMs: 180_000,
    });
    token = await new TokenIssuer(secret, `${photos.url}/`).issue({
      scope: ["create", "update", "delete"],
      clientId: "interop",
      lifetimeDays: 1,
    });
  });
  after(async () => {
    await server?.stop();
    await photos?.close();
    await proxy?.close();
    await pds?.stop();
  });

  async function createPost(content: string): Promise<string> {
    const response = await fetch(`${server.url}/micropub`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json",
      },
      body: JSON.stringify({
        type: ["h-entry"],
        properties: { content: [content], "mp-syndicate-to": [uid()] },
      }),
    });
    assert.equal(response.status, 201, await response.text());
    return response.headers.get("location") ?? "";
  }

  async function syndicate(path: string): Promise<PostResult & { results?: PostResult[] }> {
    const response = await fetch(`${server.url}/syndicate${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
    });
    assert.equal(response.status, 200, await response.clone().text());
    return (await response.json()) as PostResult;
  }

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
    assert.equal(result.status, "syndicated", `${JSON.stringify(result.targets)}\n${server.output()}`);
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
    assert.equal(retried?.status, "syndicated", `${JSON.stringify(batch)}\n${server.output()}`);
    const records = await threadRecords(tag);
    assert.equal(records.length, 3, "the resend made no second thread");
    assertOneChain(records);
    assert.equal(retried?.targets[0]?.url?.split("/").pop(), records[0]?.uri.split("/").pop());
  });

  it("Replace the thread: exactly the edited thread is left, one chain; a repeat makes nothing", async () => {
    const tag = `R${Date.now()}`;
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
      thread: old.map((record) => ({ id: record.uri, url: "" })),
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
    const deleted = await fetch(`${server.url}/micropub`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ action: "delete", url: post }),
    });
    assert.equal(deleted.status, 204, await deleted.text());
    await syndicate("");
    assert.deepEqual(await threadRecords(tag), [], `no record of the thread is left\n${server.output()}`);
  });
});
