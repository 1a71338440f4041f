// The Bluesky syndicator against a real Bluesky PDS (@atproto/pds with an in-memory PLC directory,
// both on 127.0.0.1): `possekit serve` runs as its own process with the syndicator configured
// against the PDS, posts are made through Micropub and sent with POST /syndicate, and every check
// reads the record (and its blobs) back from the PDS, which validates records against the lexicons.
// Run with `npm run test:interop` after `npm install --prefix interop/bluesky --no-audit --no-fund`.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { TokenIssuer } from "../../src/server/auth/tokens.ts";
import type { PostResult } from "../../src/syndication/types.ts";
import { type PhotoServer, startPhotoServer } from "../../test/fakes/photo-server.ts";
import { pngBytes } from "../../test/fakes/png.ts";
import { type ChildServer, startChildServer } from "../../test/helpers/child-server.ts";
import { type LosingProxy, startLosingProxy } from "./losing-proxy.ts";
import { type Account, type PostRecord, type RealPds, startRealPds } from "./pds.ts";

const collection = "app.bsky.feed.post";

describe("Bluesky syndicator against a real PDS", () => {
  let pds: RealPds;
  let proxy: LosingProxy;
  let photos: PhotoServer;
  let server: ChildServer;
  let account: Account;
  let bob: Account;
  let token: string;
  const uid = () => `https://bsky.app/profile/${account.handle}`;

  before(async () => {
    pds = await startRealPds();
    account = await pds.createAccount("alice");
    bob = await pds.createAccount("bob");
    proxy = await startLosingProxy(pds.url);
    photos = await startPhotoServer();
    const secret = randomBytes(24).toString("base64url");
    server = await startChildServer({
      secret,
      config: {
        plugins: ["@possekit/endpoint-syndicate", "@possekit/syndicator-bluesky"],
        "@possekit/syndicator-bluesky": { handle: account.handle, serviceUrl: proxy.url },
        // The photos and post pages are served from 127.0.0.1 in this test: the site is the photo server.
        fetch: { allowPrivate: true },
        publication: { me: photos.url },
      },
      env: { BLUESKY_PASSWORD: account.appPassword },
    });
    // Tokens name the site they are for, here the photo server (the child's own helper assumes another).
    token = await new TokenIssuer(secret, `${photos.url}/`).issue({
      scope: ["create", "update"],
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

  async function createPost(properties: Record<string, unknown>): Promise<string> {
    const response = await fetch(`${server.url}/micropub`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json",
      },
      body: JSON.stringify({ type: ["h-entry"], properties: { ...properties, "mp-syndicate-to": [uid()] } }),
    });
    assert.equal(response.status, 201, await response.text());
    const location = response.headers.get("location");
    assert.ok(location);
    return location;
  }

  async function syndicate(path: string): Promise<PostResult & { results?: PostResult[] }> {
    const response = await fetch(`${server.url}/syndicate${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
    });
    assert.equal(response.status, 200, await response.clone().text());
    return (await response.json()) as PostResult;
  }

  /** Creates and syndicates a post; returns the record the PDS holds for the copy. */
  async function publish(properties: Record<string, unknown>, beforeSending?: (post: string) => void) {
    const post = await createPost(properties);
    beforeSending?.(post);
    const result = await syndicate(`?source_url=${encodeURIComponent(post)}`);
    assert.equal(result.status, "syndicated", `${JSON.stringify(result.targets)}\n${server.output()}`);
    const copy = result.targets[0]?.url ?? "";
    const rkey = /\/post\/([^/]+)$/.exec(copy)?.[1];
    assert.ok(rkey, copy);
    const { uri, value } = await pds.getRecord(account.did, collection, rkey);
    return { post, copy, rkey, uri, record: value };
  }

  /** The text a facet marks, cut out by its UTF-8 byte offsets as every Bluesky client does. */
  const marked = (record: PostRecord, index: number) => {
    const facet = record.facets?.[index];
    assert.ok(facet, `no facet ${index} in ${JSON.stringify(record.facets)}`);
    return Buffer.from(record.text, "utf8")
      .subarray(facet.index.byteStart, facet.index.byteEnd)
      .toString("utf8");
  };

  it("copies a note: its text in a record the PDS accepted, with a link card for the post and its og:image", async () => {
    const picture = pngBytes(120, 63);
    const { post, copy, uri, rkey, record } = await publish(
      { content: ["Hello from my own site"] },
      (post) => {
        // The post's page, as the site would serve it, names its card picture.
        photos.add("/media/card.png", picture, "image/png");
        const head = `<meta property="og:image" content="/media/card.png">`;
        photos.add(new URL(post).pathname, Buffer.from(`<html><head>${head}</head></html>`), "text/html");
      },
    );
    assert.equal(uri, `at://${account.did}/${collection}/${rkey}`);
    // The copy's URL names the account by its DID, which outlives a change of handle.
    assert.equal(copy, `https://bsky.app/profile/${account.did}/post/${rkey}`);
    assert.equal(record.text, "Hello from my own site");
    assert.equal(record.embed?.$type, "app.bsky.embed.external");
    assert.equal(record.embed?.external?.uri, post);
    const thumb = record.embed?.external?.thumb?.ref.$link;
    assert.ok(thumb, "the card has a picture");
    assert.deepEqual((await pds.getBlob(account.did, thumb)).bytes, picture);
  });

  it("cuts a long note to 300 graphemes and links the whole post, the link facet at its byte offsets", async () => {
    const words = Array.from({ length: 120 }, (_, i) => `wörd${i}`).join(" ");
    const { post, record } = await publish({ content: [`Über 🚲 ${words}`] });
    assert.ok([...new Intl.Segmenter().segment(record.text)].length <= 300, record.text);
    assert.ok(record.text.startsWith("Über 🚲 wörd0 wörd1"), record.text);
    assert.ok(record.text.endsWith(post), record.text);
    assert.equal(marked(record, 0), post);
    assert.equal(record.facets?.[0]?.features[0]?.uri, post);
  });

  it("marks links after multi-byte characters at their UTF-8 byte offsets", async () => {
    const { record } = await publish({
      content: ["Grüße 👋🏽 see https://example.com/a?b=1 and https://example.net/c"],
    });
    assert.equal(record.facets?.length, 2, JSON.stringify(record.facets));
    assert.equal(marked(record, 0), "https://example.com/a?b=1");
    assert.equal(record.facets?.[0]?.features[0]?.uri, "https://example.com/a?b=1");
    assert.equal(marked(record, 1), "https://example.net/c");
    assert.equal(record.facets?.[1]?.features[0]?.$type, "app.bsky.richtext.facet#link");
  });

  it("marks a mention with the DID the PDS resolves, #hashtags, categories as tags, a bare domain; langs", async () => {
    const { record } = await publish({
      content: [`Thanks @${bob.handle} for #IndieWeb tips, see example.com`],
      category: ["walks"],
      lang: "en",
    });
    assert.equal(record.text, `Thanks @${bob.handle} for #IndieWeb tips, see example.com\n\n#walks`);
    assert.deepEqual(record.langs, ["en"]);
    const features = record.facets?.map((facet) => facet.features[0]);
    assert.deepEqual(
      record.facets?.map((_, index) => marked(record, index)),
      [`@${bob.handle}`, "#IndieWeb", "example.com", "#walks"],
    );
    assert.deepEqual(features, [
      { $type: "app.bsky.richtext.facet#mention", did: bob.did },
      { $type: "app.bsky.richtext.facet#tag", tag: "IndieWeb" },
      { $type: "app.bsky.richtext.facet#link", uri: "https://example.com" },
      { $type: "app.bsky.richtext.facet#tag", tag: "walks" },
    ]);
  });

  it("uploads a photo as a blob the PDS serves back byte for byte, with its alt text and aspect ratio", async () => {
    const png = pngBytes(64, 48);
    const photo = photos.add("/bike.png", png, "image/png");
    const { record } = await publish({
      content: ["A photo"],
      photo: [{ value: photo, alt: "A red bicycle by a wall" }],
    });
    assert.equal(record.embed?.$type, "app.bsky.embed.images");
    const image = record.embed?.images?.[0];
    assert.ok(image);
    assert.equal(image.alt, "A red bicycle by a wall");
    assert.equal(image.image.mimeType, "image/png");
    assert.deepEqual(image.aspectRatio, { width: 64, height: 48 });
    const blob = await pds.getBlob(account.did, image.image.ref.$link);
    assert.deepEqual(blob.bytes, png);
  });

  it("likes and reposts Bob's post by strong reference, and replies to it in its thread", async () => {
    const bobs = await pds.createPost(bob, "Bob's post");
    const page = `https://bsky.app/profile/${bob.handle}/post/${bobs.rkey}`;
    const byDid = `https://bsky.app/profile/${bob.did}/post/${bobs.rkey}`;
    const subject = { uri: bobs.uri, cid: bobs.cid };
    for (const [property, collectionOfIt] of [
      ["like-of", "app.bsky.feed.like"],
      ["repost-of", "app.bsky.feed.repost"],
    ] as const) {
      const post = await createPost({ [property]: [page] });
      const result = await syndicate(`?source_url=${encodeURIComponent(post)}`);
      assert.equal(result.status, "syndicated", JSON.stringify(result.targets));
      assert.equal(result.targets[0]?.url, byDid, "a like or repost links the post it is about");
      const made = await pds.listRecords(account.did, collectionOfIt);
      assert.deepEqual(
        made.map((record) => record.value.subject),
        [subject],
      );
    }
    const { record } = await publish({ content: ["Well said"], "in-reply-to": [page] });
    assert.deepEqual(record.reply, { root: subject, parent: subject });
  });

  it("sends again with the same record key after lost answers, and the PDS holds one record", async () => {
    const text = `Sent twice, posted once ${Date.now()}`;
    const post = await createPost({ content: [text] });
    // The post is made but its answer is lost, and so is the answer of the look-up that follows.
    proxy.loseNextAnswer("com.atproto.repo.createRecord", "com.atproto.repo.getRecord");
    const first = await syndicate(`?source_url=${encodeURIComponent(post)}`);
    assert.equal(proxy.lost(), 2);
    assert.notEqual(first.status, "syndicated", JSON.stringify(first));
    const copies = async () =>
      (await pds.listRecords(account.did, collection)).filter((r) => r.value.text === text);
    assert.equal((await copies()).length, 1, "the lost answer's record was made");

    const batch = await syndicate("/retry");
    const retried = batch.results?.find((result) => result.url === post);
    assert.equal(retried?.status, "syndicated", JSON.stringify(batch));
    const copy = retried?.targets[0];
    const records = await copies();
    assert.equal(records.length, 1, "the resend made no second record");
    assert.equal(records[0]?.uri.split("/").pop(), copy?.url?.split("/").pop());
  });
});
