// The Bluesky syndicator against a real Bluesky PDS (@atproto/pds with an in-memory PLC directory,
// both on 127.0.0.1): `possekit serve` runs as its own process with the syndicator configured
// against the PDS, posts are made through Micropub and sent with POST /syndicate, and every check
// reads the record (and its blobs) back from the PDS, which validates records against the lexicons.
// Run with `npm run test:interop` after `npm install --prefix interop/bluesky --no-audit --no-fund`.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { createJimp } from "@jimp/core";
import jpeg from "@jimp/js-jpeg";
import { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import { type PhotoServer, startPhotoServer } from "../../test/fakes/photo-server.ts";
import { noisyPngBytes, pngBytes } from "../../test/fakes/png.ts";
import { type LosingProxy, startLosingProxy } from "./losing-proxy.ts";
import { type Account, type PostRecord, type RealPds, startRealPds } from "./pds.ts";
import {
  createPostAt,
  type Instance,
  type Possekit,
  startPossekit,
  syndicateAt,
} from "./possekit-beside-the-pds.ts";

const collection = "app.bsky.feed.post";

describe("Bluesky syndicator against a real PDS", () => {
  let pds: RealPds;
  let proxy: LosingProxy;
  let photos: PhotoServer;
  let alices: Possekit;
  let account: Account;
  let bob: Account;
  const uid = () => `https://bsky.app/profile/${account.handle}`;

  before(async () => {
    // With the PDS's own rate limits on, as on bsky.social.
    pds = await startRealPds({ rateLimits: true });
    account = await pds.createAccount("alice");
    bob = await pds.createAccount("bob");
    proxy = await startLosingProxy(pds.url);
    photos = await startPhotoServer();
    alices = await startPossekit(
      photos,
      {
        plugins: ["@possekit/endpoint-syndicate", "@possekit/syndicator-bluesky"],
        "@possekit/syndicator-bluesky": { handle: account.handle, serviceUrl: proxy.url },
      },
      { BLUESKY_PASSWORD: account.appPassword },
    );
  });
  after(async () => {
    await alices?.server.stop();
    await photos?.close();
    await proxy?.close();
    await pds?.stop();
  });

  /** On Alice's possekit unless told, naming her account. */
  const createPost = (properties: Record<string, unknown>, on: Instance = alices, target = uid()) =>
    createPostAt(on, properties, target);
  const syndicate = (path: string, on: Instance = alices) => syndicateAt(on, path);

  /** Creates and syndicates a post; returns the record the PDS holds for the copy. */
  async function publish(properties: Record<string, unknown>, beforeSending?: (post: string) => void) {
    const post = await createPost(properties);
    beforeSending?.(post);
    const result = await syndicate(`?source_url=${encodeURIComponent(post)}`);
    assert.equal(result.status, "syndicated", `${JSON.stringify(result.targets)}\n${alices.server.output()}`);
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
  it("downscales a photo over 1,000,000 bytes: the blob read back fits and decodes, aspect ratio right", async () => {
    // 2,600 × 1,000 pixels and 1.9 MB: the PDS would refuse the record with this blob in it.
    const png = noisyPngBytes(2600, 1000, { width: 640, height: 560 });
    assert.ok(png.length > 1_000_000);
    const photo = photos.add("/large.png", png, "image/png");
    const { record } = await publish({
      content: ["A large photo"],
      photo: [{ value: photo, alt: "A wide street at night" }],
    });
    const image = record.embed?.images?.[0];
    assert.ok(image, JSON.stringify(record.embed));
    assert.equal(image.alt, "A wide street at night");
    assert.equal(image.image.mimeType, "image/jpeg");
    const blob = await pds.getBlob(account.did, image.image.ref.$link);
    assert.ok(blob.bytes.length <= 1_000_000, `${blob.bytes.length} bytes`);
    assert.equal(image.image.size, blob.bytes.length);
    const decoded = await createJimp({ formats: [jpeg] }).fromBuffer(blob.bytes);
    assert.deepEqual(image.aspectRatio, { width: decoded.bitmap.width, height: decoded.bitmap.height });
    assert.ok(decoded.bitmap.width <= 2000, `${decoded.bitmap.width} px wide`);
    assert.ok(
      Math.abs(decoded.bitmap.width / decoded.bitmap.height - 2.6) < 0.01,
      JSON.stringify(image.aspectRatio),
    );
  });

  it("a 429 from the PDS's own rate limit: the next attempt is at its ratelimit-reset, and nothing is asked before", async () => {
    // Carol's sign-ins from this address are used up (30 in 5 minutes) before possekit signs in.
    const carol = await pds.createAccount("carol");
    const useUpSignIns = async () => {
      for (let i = 0; i < 30; i++) {
        const attempt = await fetch(`${pds.url}/xrpc/com.atproto.server.createSession`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ identifier: carol.handle, password: "not-her-password" }),
        });
        assert.equal(attempt.status, 401, await attempt.text());
      }
    };
    // Her own possekit (the other one is Alice's), started meanwhile; it signs in only when it sends.
    const [carols] = await Promise.all([
      startPossekit(
        photos,
        {
          plugins: ["@possekit/endpoint-syndicate", "@possekit/syndicator-bluesky"],
          "@possekit/syndicator-bluesky": { handle: carol.handle, serviceUrl: proxy.url },
        },
        { BLUESKY_PASSWORD: carol.appPassword },
      ),
      useUpSignIns(),
    ]);
    const carolsServer = carols.server;
    try {
      const carolsUid = `https://bsky.app/profile/${carol.handle}`;
      const post = await createPost({ content: ["Limited"] }, carols, carolsUid);
      const mark = proxy.answers.length;
      const result = await syndicate(`?source_url=${encodeURIComponent(post)}`, carols);
      assert.equal(result.status, "failed", JSON.stringify(result));
      assert.match(result.targets[0]?.error ?? "", /^Bluesky: 429 RateLimitExceeded/);
      const limited = proxy.answers.slice(mark).find((answer) => answer.status === 429);
      assert.equal(limited?.nsid, "com.atproto.server.createSession");
      const reset = Number(limited?.headers["ratelimit-reset"]);
      assert.ok(reset * 1000 > Date.now() + 60_000, `ratelimit-reset ${reset} is minutes ahead`);

      // The results page says when the next try is ("in 5 minutes (<time>)"): the PDS's reset, not the 2-minute backoff.
      const { cookie } = await carolsServer.signIn();
      const page = await fetch(`${carolsServer.url}/syndicate/posts?url=${encodeURIComponent(post)}`, {
        headers: { cookie, accept: "text/html" },
      });
      const html = await page.text();
      const next = /Next try<\/dt><dd>[^<]*<time datetime="([^"]+)"/.exec(html)?.[1];
      assert.ok(next, html);
      assert.ok(
        Math.abs(Date.parse(next) - reset * 1000) <= 2000,
        `next try ${next}, reset ${new Date(reset * 1000).toISOString()}`,
      );

      // A run meanwhile leaves the target alone: not a request reaches the PDS for it.
      const before = proxy.answers.length;
      const batch = await syndicate("", carols);
      assert.equal(batch.results?.[0]?.targets[0]?.status, "skipped", JSON.stringify(batch));
      assert.equal(proxy.answers.length, before, JSON.stringify(proxy.answers.slice(before)));
    } finally {
      await carolsServer.stop();
    }
  });

  it("renews an expired access token with refreshSession, without signing in again", async () => {
    await publish({ content: ["Before the session expires"] });
    // Two hours and a minute pass on the PDS: the access token it issued (2 hours) has expired.
    await pds.advanceClock(121 * 60 * 1000);
    const mark = proxy.answers.length;
    await publish({ content: ["After the session expired"] });
    const calls = proxy.answers
      .slice(mark)
      .map((answer) => `${answer.nsid} ${answer.status} ${answer.error ?? ""}`.trim());
    const expired = calls.findIndex((call) => call.endsWith("400 ExpiredToken"));
    assert.ok(expired >= 0, calls.join("\n"));
    assert.equal(calls[expired + 1], "com.atproto.server.refreshSession 200", calls.join("\n"));
    assert.ok(!calls.some((call) => call.startsWith("com.atproto.server.createSession")), calls.join("\n"));
  });

  /** The syndicator as the server runs it, in this process: the core that calls delete() is elsewhere. */
  const alicesSyndicator = () =>
    new BlueskySyndicator({ handle: account.handle, password: account.appPassword, serviceUrl: pds.url }, {});
  const site = () => ({ me: `${photos.url}/`, postUrlPattern: "{me}{slug}", timezone: "UTC", name: "Alice" });
  const deleteOptions = (url: string) => ({
    url,
    idempotencyKey: randomBytes(16).toString("hex"),
    signal: AbortSignal.timeout(60_000),
  });

  it("deletes a post copy with deleteRecord: getRecord then answers RecordNotFound, and a second delete succeeds", async () => {
    const { copy, rkey } = await publish({ content: [`To be deleted ${Date.now()}`] });
    const syndicator = alicesSyndicator();
    const note = { type: "entry", content: { text: "To be deleted" } };
    await syndicator.delete(note, site(), deleteOptions(copy));
    await assert.rejects(pds.getRecord(account.did, collection, rkey), /400 .*"error":"RecordNotFound"/);
    // The PDS answers the delete of a record that is not there with success: a retry is harmless.
    await syndicator.delete(note, site(), deleteOptions(copy));
  });

  it("deletes a like copy (whose URL is Bob's post): our like record goes, Bob's post stays", async () => {
    // The PDS's clock has moved on past the 2 hours Bob's token lives (the session test): sign in again.
    const bobs = await pds.createPost(await pds.signIn(bob), "Bob's post to like and unlike");
    const like = { "like-of": [`https://bsky.app/profile/${bob.handle}/post/${bobs.rkey}`] };
    const post = await createPost(like);
    const result = await syndicate(`?source_url=${encodeURIComponent(post)}`);
    const copy = result.targets[0]?.url ?? "";
    const likesOfIt = async () =>
      (await pds.listRecords(account.did, "app.bsky.feed.like")).filter(
        (record) => record.value.subject?.uri === bobs.uri,
      );
    assert.equal((await likesOfIt()).length, 1, JSON.stringify(result.targets));
    await alicesSyndicator().delete({ type: "entry", ...like }, site(), deleteOptions(copy));
    assert.deepEqual(await likesOfIt(), []);
    assert.equal((await pds.getRecord(bob.did, collection, bobs.rkey)).uri, bobs.uri);
  });
});
