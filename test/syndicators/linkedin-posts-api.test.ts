// The LinkedIn target against the sandbox that answers as LinkedIn's documentation says: a post
// with its article card and an uploaded thumbnail, named by x-restli-id; every reserved character
// of the little format shown as written; a 429 waits until the next 00:00 UTC; an edit changes the
// commentary only; a deletion is a DELETE, and one already gone counts as deleted; a lost answer to
// the create is an uncertain outcome, never a plain failure.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { listen } from "../../dev/sandbox/http-kit.ts";
import { type LinkedinSandbox, startLinkedinSandbox } from "../../dev/sandbox/linkedin-server.ts";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import { LinkedinSyndicator } from "../../src/syndicators/linkedin/index.ts";
import { DEFAULT_LINKEDIN_VERSION } from "../../src/syndicators/linkedin/linkedin-options.ts";
import { jpegBytes, type PhotoServer, startPhotoServer } from "../fakes/photo-server.ts";
import { callOptions, changeOptions, HANG_MS, note, siteServedBy } from "./fixtures.ts";

const author = "urn:li:person:AbC123xyz";

/** Every character the little format reserves, in fixtures a post may hold. */
export const RESERVED_FIXTURES = [
  "Backslash \\ and pipe | in a sentence",
  "Braces {like this} and an at @ sign",
  "Brackets [1] and (parentheses) and <angles>",
  "A lone # and *stars* and _underscores_ and ~tildes~",
  "All at once: \\|{}@[]()<>#*_~ end",
  "A mention-like @[Name](urn:li:person:x) stays text",
];

async function rejection(promise: Promise<unknown>): Promise<SyndicationError> {
  const error = await promise.then(
    () => assert.fail("it went through"),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof SyndicationError, String(error));
  return error;
}

describe("LinkedIn: the Posts API", () => {
  let sandbox: LinkedinSandbox;
  let photos: PhotoServer;
  let now = Date.parse("2026-11-28T13:45:10Z");
  const syndicatorWith = (extra: Record<string, unknown> = {}) =>
    new LinkedinSyndicator(
      { author, name: "Ada Lovelace", accessToken: "token", apiUrl: sandbox.url, ...extra },
      {},
      () => now,
    );
  let syndicator: LinkedinSyndicator;

  before(async () => {
    sandbox = await startLinkedinSandbox({ accessToken: "token" });
    photos = await startPhotoServer();
    syndicator = syndicatorWith();
  });
  beforeEach(() => {
    sandbox.clearBehaviour();
    sandbox.posts.length = 0;
    sandbox.requests.length = 0;
  });
  after(() => Promise.all([sandbox.close(), photos.close()]));

  it("posts the commentary with an article card: the post's title, description and uploaded thumbnail", async () => {
    const site = siteServedBy(photos.url);
    const featured = `${photos.url}/photo.jpg`;
    const post = note({
      name: "A long walk",
      summary: "Twelve miles along the coast",
      content: { text: "The whole story of the walk.", html: "" },
      featured: [featured],
    });
    const url = await syndicator.syndicate(post, site, callOptions());
    const [made] = sandbox.posts;
    assert.ok(made);
    assert.equal(url, `https://www.linkedin.com/feed/update/${made.urn}/`, "named by x-restli-id");
    assert.equal(made.author, author);
    assert.equal(made.visibility, "PUBLIC");
    assert.equal(made.shown, "A long walk", "the card carries the link");
    assert.equal(made.article?.source, "https://example.org/notes/hello/");
    assert.equal(made.article?.title, "A long walk");
    assert.equal(made.article?.description, "Twelve miles along the coast");
    const thumbnail = made.article?.thumbnail ?? "";
    assert.match(thumbnail, /^urn:li:image:/);
    assert.deepEqual(
      sandbox.images.get(thumbnail),
      jpegBytes,
      "the picture's bytes were PUT to the upload URL",
    );
    const create = sandbox.requests.find((r) => r.method === "POST" && r.path === "/rest/posts");
    assert.equal(create?.headers["linkedin-version"], DEFAULT_LINKEDIN_VERSION);
    assert.equal(create?.headers["x-restli-protocol-version"], "2.0.0");
    const order = sandbox.requests.map((r) => `${r.method} ${r.path.split("?")[0]}`);
    assert.deepEqual(
      order.filter((line) => !line.startsWith("GET")),
      [
        "POST /rest/images",
        `PUT /dms-uploads/${thumbnail.slice("urn:li:image:".length)}`,
        "POST /rest/posts",
      ],
    );
    // The preview is what was sent.
    const preview = syndicator.preview(post, site);
    assert.equal(preview.text, made.shown);
    assert.equal(preview.permalink, "card");
    assert.equal(preview.linkCard?.image, featured);
  });

  it("without a picture the card has none, and the first photo stands in for a missing featured image", async () => {
    const site = siteServedBy(photos.url);
    await syndicator.syndicate(note({ content: { text: "Plain note", html: "" } }), site, callOptions());
    assert.equal(sandbox.posts[0]?.article?.thumbnail, undefined);
    assert.equal(
      sandbox.posts[0]?.shown,
      "Plain note",
      "the card carries the link: the text does not repeat it",
    );
    await syndicator.syndicate(
      note({ photo: [{ value: `${photos.url}/photo.jpg`, alt: "Sea" }] }),
      site,
      callOptions(),
    );
    assert.match(sandbox.posts[1]?.article?.thumbnail ?? "", /^urn:li:image:/);
  });

  it("every reserved character of the little format reaches LinkedIn escaped, and is shown as written", async () => {
    const site = siteServedBy(photos.url);
    for (const text of RESERVED_FIXTURES) {
      await syndicator.syndicate(note({ content: { text, html: "" } }), site, callOptions());
      const made = sandbox.posts.at(-1);
      assert.equal(made?.cut, false, `not cut: ${made?.commentary}`);
      assert.equal(made?.shown, text);
    }
  });

  it("hashtags stay hashtags: the post's own and its categories", async () => {
    const site = siteServedBy(photos.url);
    const post = note({
      content: { text: "Walking #outdoors_life today", html: "" },
      category: ["Coast", "walks"],
    });
    await syndicator.syndicate(post, site, callOptions());
    const made = sandbox.posts.at(-1);
    assert.match(made?.commentary ?? "", /\{hashtag\|\\#\|outdoors\\_life\}/);
    assert.match(made?.commentary ?? "", /\{hashtag\|\\#\|Coast\}/);
    assert.equal(made?.shown, "Walking #outdoors_life today\n\n#Coast #walks");
  });

  it("a 429 is not permanent and waits until the next 00:00 UTC by the injected clock", async () => {
    const site = siteServedBy(photos.url);
    sandbox.rateLimit("POST /rest/posts");
    now = Date.parse("2026-11-28T13:45:10Z");
    const error = await rejection(syndicator.syndicate(note(), site, callOptions()));
    assert.equal(error.status, 429);
    assert.equal(error.permanent, false);
    assert.equal(error.uncertain, false, "a 429 made nothing");
    assert.equal(error.retryAfterSeconds, (Date.parse("2026-11-29T00:00:00Z") - now) / 1000);
    assert.match(error.message, /^LinkedIn: 429 Resource level throttle/);
    now = Date.parse("2026-11-29T23:59:59.500Z");
    sandbox.rateLimit("POST /rest/posts");
    assert.equal((await rejection(syndicator.syndicate(note(), site, callOptions()))).retryAfterSeconds, 1);
    assert.equal(sandbox.posts.length, 0);
  });

  it("an edit changes the commentary only (PARTIAL_UPDATE); the card and its picture are kept", async () => {
    const site = siteServedBy(photos.url);
    const post = note({ name: "First title", featured: [`${photos.url}/photo.jpg`] });
    const url = await syndicator.syndicate(post, site, callOptions());
    const card = structuredClone(sandbox.posts[0]?.article);
    const pictures = sandbox.images.size;
    const edited = { ...post, name: "Second (better) title", featured: [`${photos.url}/other.jpg`] };
    await syndicator.update(edited, site, changeOptions(url));
    const made = sandbox.posts[0];
    assert.equal(made?.shown, "Second (better) title");
    assert.equal(made?.edits.length, 1);
    assert.deepEqual(made?.article, card, "the card as it was sent");
    const patch = sandbox.requests.find((r) => r.headers["x-restli-method"] === "PARTIAL_UPDATE");
    assert.equal(patch?.method, "POST");
    assert.equal(patch?.path, `/rest/posts/${encodeURIComponent(made?.urn ?? "")}`);
    assert.deepEqual(Object.keys(JSON.parse(patch?.body ?? "{}").patch.$set), ["commentary"]);
    assert.equal(sandbox.images.size, pictures, "no new picture was uploaded");
  });

  it("deletes with DELETE; deleting again finds it gone (404) and counts it deleted", async () => {
    const site = siteServedBy(photos.url);
    const post = note();
    const url = await syndicator.syndicate(post, site, callOptions());
    await syndicator.delete(post, site, changeOptions(url));
    assert.equal(sandbox.posts[0]?.deleted, true);
    await syndicator.delete(post, site, changeOptions(url));
    const deletes = sandbox.requests.filter((r) => r.method === "DELETE");
    assert.equal(deletes.length, 2);
    assert.equal(deletes[0]?.headers["x-restli-method"], "DELETE");
  });

  it("a create whose answer is lost, or comes without x-restli-id, is uncertain: the post may exist", async () => {
    const site = siteServedBy(photos.url);
    sandbox.dropCreateAnswer();
    const dropped = await rejection(syndicator.syndicate(note(), site, callOptions()));
    assert.equal(dropped.uncertain, true);
    sandbox.omitRestliId();
    const unnamed = await rejection(syndicator.syndicate(note(), site, callOptions()));
    assert.equal(unnamed.uncertain, true);
    assert.match(unnamed.message, /x-restli-id/);
    assert.equal(sandbox.posts.length, 2, "both were made");
    assert.equal(syndicator.honoursIdempotencyKey, false);
  });

  it("sends the LinkedIn-Version it is given, and names the option when it is no month", async () => {
    const site = siteServedBy(photos.url);
    await syndicatorWith({ linkedinVersion: "202607" }).syndicate(note(), site, callOptions());
    assert.equal(sandbox.requests.at(-1)?.headers["linkedin-version"], "202607");
    assert.throws(
      () => syndicatorWith({ linkedinVersion: "2026-07" }),
      /syndicator-linkedin: option "linkedinVersion" must be a month written YYYYMM/,
    );
  });

  it("a refused token is permanent, in LinkedIn's words; verify checks whose the token is", async () => {
    const site = siteServedBy(photos.url);
    const error = await rejection(
      syndicatorWith({ accessToken: "wrong" }).syndicate(note(), site, callOptions()),
    );
    assert.equal(error.status, 401);
    assert.equal(error.permanent, true);
    assert.match(error.message, /LinkedIn: 401 Invalid access token/);
    await syndicator.verify({ signal: AbortSignal.timeout(HANG_MS) });
    const other = syndicatorWith({ author: "urn:li:person:Someone" });
    await assert.rejects(
      other.verify({ signal: AbortSignal.timeout(HANG_MS) }),
      /belongs to urn:li:person:AbC123xyz/,
    );
  });

  it("never sends the token to an upload URL on another site", async () => {
    const puts: (string | undefined)[] = [];
    const elsewhere = await listen((request, response) => {
      puts.push(request.headers.authorization);
      response.writeHead(201, { "content-length": 0 });
      response.end();
    });
    const misled = await startLinkedinSandbox({ accessToken: "token", uploadBase: elsewhere.url });
    try {
      const site = siteServedBy(photos.url);
      const post = note({ featured: [`${photos.url}/photo.jpg`] });
      await new LinkedinSyndicator({ author, accessToken: "token", apiUrl: misled.url })
        .syndicate(post, site, callOptions())
        .catch(() => {});
      assert.equal(puts.length, 1, "the picture went where LinkedIn said");
      assert.equal(puts[0], undefined, "without the token");
    } finally {
      await Promise.all([misled.close(), elsewhere.close()]);
    }
  });

  it("a like or a repost of a page is refused for good, saying why", async () => {
    const site = siteServedBy(photos.url);
    const error = await rejection(
      syndicator.syndicate(note({ "like-of": ["https://other.example/x"] }), site, callOptions()),
    );
    assert.equal(error.permanent, true);
    assert.equal(sandbox.posts.length, 0);
  });
});
