// Decision 0025: preview(post) shows, without any network call, exactly what syndicate() sends. For every
// syndicator, real-looking posts are previewed, then sent to the protocol fake, and the preview is
// compared with what the fake received: the text, the photos' alt text, the link card.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { countGraphemes } from "../../src/contract/graphemes.ts";
import type { CopyPreview, PostProperties, Publication } from "../../src/contract/syndicator.ts";
import { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import { InternetArchiveSyndicator } from "../../src/syndicators/internet-archive/index.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { mastodonLength } from "../../src/syndicators/mastodon/mastodon-length.ts";
import { MicropubSyndicator } from "../../src/syndicators/micropub/index.ts";
import { type FakePds, startFakePds } from "../fakes/bluesky-pds.ts";
import { type FakeArchive, startFakeArchive } from "../fakes/internet-archive.ts";
import { type FakeMicropub, startFakeMicropub } from "../fakes/micropub-endpoint.ts";
import { type PhotoServer, startPhotoServer } from "../fakes/photo-server.ts";
import { pngBytes } from "../fakes/png.ts";
import { callOptions, note, siteServedBy } from "./fixtures.ts";

const longText = `${"Walking along the old canal this morning I counted herons, cormorants and a kingfisher. ".repeat(8)}More at https://example.com/a/rather/long/path/that/counts/as/twenty-three?with=query and https://example.net/.`;
const emoji =
  "Café crème 👩🏽‍💻 with ünïcode: e\u0301 a\u0308 🏳️‍🌈 and 👨‍👩‍👧‍👦 at https://example.com/ä?q=1 🎉";

/** The posts of the table: name, properties (photos need the photo server's address). */
function posts(photoBase: string): [string, PostProperties][] {
  const fourPhotos = [1, 2, 3, 4].map((n) => ({
    url: `${photoBase}/photo.jpg?n=${n}`,
    alt: `Photo ${n}: a heron standing in the reeds, its neck folded, in the grey light of the morning`,
  }));
  return [
    [
      "long text with links and hashtags",
      note({ content: { text: longText, html: "" }, category: ["indie web", "birds", "2024"] }),
    ],
    ["emoji and combining characters", note({ content: { text: emoji, html: "" }, category: ["café"] })],
    [
      "four photos with alt text",
      note({ content: { text: "Four herons today.", html: "" }, photo: fourPhotos }),
    ],
    [
      "a name with a summary",
      note({
        name: "Notes on herons",
        summary: "What I learnt from a month of watching herons on the canal.",
      }),
    ],
  ];
}

const bobDid = "did:plc:bob00000000000000000000";

interface BlueskyRecord {
  text: string;
  facets?: unknown[];
  embed?: {
    $type: string;
    images?: { alt: string }[];
    external?: Record<string, unknown> & { thumb?: { ref: { $link: string } } };
  };
}

/** The same numbers a user reads on the page: the length the service counts, against its limit. */
function assertCounted(preview: CopyPreview, count: number, limit: number) {
  assert.equal(preview.length?.count, count);
  assert.equal(preview.length?.limit, limit);
  assert.equal(preview.over, count > limit);
}

describe("preview equals what each target receives", () => {
  let photos: PhotoServer;
  let publication: Publication;
  before(async () => {
    photos = await startPhotoServer();
    publication = siteServedBy(photos.url);
  });
  after(() => photos.close());

  describe("Mastodon", () => {
    let sandbox: MastodonSandbox;
    before(async () => {
      sandbox = await startMastodonSandbox({ accessToken: "token", user: "alice" });
    });
    after(() => sandbox.close());

    it("says which limit it assumed before the instance was read, and the send matches it", async () => {
      const syndicator = new MastodonSyndicator({ url: sandbox.url, user: "alice", accessToken: "token" });
      const first = syndicator.preview(note(), publication);
      assert.equal(first.length?.assumed, true);
      assert.equal(first.length?.limit, 500);
      await syndicator.syndicate(note(), publication, callOptions());
      assert.equal(sandbox.statuses.at(-1)?.text, first.text);
      assert.equal(syndicator.preview(note(), publication).length?.assumed, undefined);
    });

    for (const [name, properties] of posts("PHOTOS")) {
      it(`${name}: the status and its media are the preview`, async () => {
        const post = JSON.parse(
          JSON.stringify(properties).replaceAll("PHOTOS", photos.url),
        ) as PostProperties;
        const syndicator = new MastodonSyndicator({ url: sandbox.url, user: "alice", accessToken: "token" });
        const preview = syndicator.preview(post, publication);
        await syndicator.syndicate(post, publication, callOptions());
        const status = sandbox.statuses.at(-1);
        assert.ok(status);
        assert.equal(status.text, preview.text);
        assertCounted(preview, mastodonLength(status.text), 500);
        assert.deepEqual(
          status.media.map((media) => media.description),
          preview.photos.map((photo) => photo.alt ?? null),
        );
        assert.equal(
          preview.permalink,
          status.text.includes("https://example.org/notes/hello/") ? "text" : "none",
        );
      });
    }

    it("a template and appendUrl: never; and the user's own words, sent as they are", async () => {
      const syndicator = new MastodonSyndicator({
        url: sandbox.url,
        user: "alice",
        accessToken: "token",
        template: "{{ name }}: {{ summary }} ({{ categories | join(', ') }})",
        appendUrl: "never",
        includeCategories: false,
      });
      const post = note({ name: "Herons", summary: "A month of watching", category: ["birds", "canal"] });
      const preview = syndicator.preview(post, publication);
      assert.equal(preview.text, "Herons: A month of watching (birds, canal)");
      assert.equal(preview.permalink, "none");
      await syndicator.syndicate(post, publication, callOptions());
      assert.equal(sandbox.statuses.at(-1)?.text, preview.text);

      const own = "My own words for Mastodon 🐦 https://example.org/notes/hello/";
      const ownPreview = syndicator.preview(post, publication, { text: own });
      assert.equal(ownPreview.ownText, true);
      assert.equal(ownPreview.permalink, "text");
      await syndicator.syndicate(post, publication, { ...callOptions(), text: own });
      assert.equal(sandbox.statuses.at(-1)?.text, own);
      assertCounted(ownPreview, mastodonLength(own), 500);
    });
  });

  describe("Bluesky", () => {
    let pds: FakePds;
    before(async () => {
      pds = await startFakePds({
        handle: "alice.example.com",
        password: "app-password",
        knownHandles: { "bob.example.net": bobDid },
      });
    });
    after(() => pds.close());
    const blueskyOf = () =>
      new BlueskySyndicator({ handle: "alice.example.com", password: "app-password", serviceUrl: pds.url });

    for (const [name, properties] of posts("PHOTOS")) {
      it(`${name}: the record's text, facets, images and link card are the preview`, async () => {
        const post = JSON.parse(
          JSON.stringify(properties).replaceAll("PHOTOS", photos.url),
        ) as PostProperties;
        const syndicator = new BlueskySyndicator({
          handle: "alice.example.com",
          password: "app-password",
          serviceUrl: pds.url,
        });
        const preview = syndicator.preview(post, publication);
        await syndicator.syndicate(post, publication, callOptions(undefined, 20_000));
        const value = pds.records.at(-1)?.value as unknown as BlueskyRecord;
        assert.equal(value.text, preview.text);
        if (/https:|#/.test(value.text)) assert.ok(preview.facets?.length, "a link or hashtag is a facet");
        assert.deepEqual(value.facets, preview.facets, "the facets and their byte offsets are the preview's");
        assertCounted(preview, countGraphemes(value.text), 300);
        assert.deepEqual(
          (value.embed?.images ?? []).map((image) => image.alt),
          preview.photos.map((photo) => photo.alt),
        );
        const external = value.embed?.external;
        const { image: _featured, imageFromPage: _fromPage, ...card } = preview.linkCard ?? {};
        assert.deepEqual(
          external
            ? { uri: external.uri, title: external.title, description: external.description }
            : undefined,
          preview.linkCard ? card : undefined,
        );
        assert.equal(
          preview.permalink,
          value.text.includes("https://example.org/notes/hello/") ? "text" : external ? "card" : "none",
        );
      });
    }

    it("a mention: the preview names the handle where the record names the DID, at the same bytes", async () => {
      const syndicator = blueskyOf();
      const post = note({
        content: { text: "Thanks @bob.example.net and @nobody.example.org! #herons", html: "" },
      });
      const preview = syndicator.preview(post, publication);
      await syndicator.syndicate(post, publication, callOptions(undefined, 20_000));
      const value = pds.records.at(-1)?.value as unknown as BlueskyRecord;
      const mention = "app.bsky.richtext.facet#mention";
      // A handle nobody has stays plain text when sending; the preview cannot know without a look-up.
      const resolvable = (preview.facets ?? []).filter(
        (facet) => !facet.features.some((feature) => feature.handle === "nobody.example.org"),
      );
      assert.deepEqual(
        value.facets,
        resolvable.map((facet) => ({
          ...facet,
          features: facet.features.map((feature) =>
            feature.$type === mention ? { $type: mention, did: bobDid } : feature,
          ),
        })),
      );
      assert.deepEqual(
        preview.facets?.map((facet) => facet.features[0]?.handle ?? facet.features[0]?.tag),
        ["bob.example.net", "nobody.example.org", "herons"],
      );
    });

    it("the card's picture: the featured image the preview names, else the page's og:image it announces", async () => {
      const syndicator = blueskyOf();
      const featuredBytes = pngBytes(40, 20);
      const pageImage = pngBytes(120, 63);
      const featured = photos.add("/media/featured.png", featuredBytes, "image/png");
      photos.add("/media/card.png", pageImage, "image/png");
      const page = photos.add(
        "/notes/card/",
        Buffer.from(`<html><head><meta property="og:image" content="/media/card.png"></head></html>`),
        "text/html",
      );
      for (const [post, bytes] of [
        [note({ url: page, name: "With a featured image", featured: [featured] }), featuredBytes],
        [note({ url: page, name: "With the page's picture" }), pageImage],
      ] as const) {
        const preview = syndicator.preview(post, publication);
        await syndicator.syndicate(post, publication, callOptions(undefined, 20_000));
        const thumb = (pds.records.at(-1)?.value as unknown as BlueskyRecord | undefined)?.embed?.external
          ?.thumb;
        const blob = pds.blobs.find((candidate) => candidate.cid === thumb?.ref.$link);
        assert.deepEqual(blob?.bytes, bytes);
        if (bytes === featuredBytes) assert.equal(preview.linkCard?.image, featured);
        else assert.deepEqual([preview.linkCard?.image, preview.linkCard?.imageFromPage], [undefined, true]);
      }
    });

    it("linkCard: false puts a title's link into the text instead, as the preview says", async () => {
      const syndicator = new BlueskySyndicator({
        handle: "alice.example.com",
        password: "app-password",
        serviceUrl: pds.url,
        linkCard: false,
      });
      const post = note({ name: "Notes on herons" });
      const preview = syndicator.preview(post, publication);
      assert.equal(preview.linkCard, undefined);
      assert.equal(preview.permalink, "text");
      await syndicator.syndicate(post, publication, callOptions(undefined, 20_000));
      const value = pds.records.at(-1)?.value as { text: string; embed?: unknown };
      assert.equal(value.text, preview.text);
      assert.equal(value.text, "Notes on herons\n\nhttps://example.org/notes/hello/");
      assert.equal(value.embed, undefined);
    });
  });

  describe("Micropub", () => {
    let endpoint: FakeMicropub;
    before(async () => {
      endpoint = await startFakeMicropub({ token: "token" });
    });
    after(() => endpoint.close());

    for (const [name, properties] of posts("PHOTOS")) {
      it(`${name}: the content and photos sent are the preview`, async () => {
        const post = JSON.parse(
          JSON.stringify(properties).replaceAll("PHOTOS", photos.url),
        ) as PostProperties;
        const syndicator = new MicropubSyndicator({ micropubEndpoint: endpoint.url, accessToken: "token" });
        const preview = syndicator.preview(post, publication);
        await syndicator.syndicate(post, publication, callOptions());
        const request = endpoint.requests.at(-1);
        const content = request?.form?.content?.[0] ?? request?.json?.properties?.content?.[0];
        assert.equal(content, preview.text);
        const sentPhotos =
          request?.form?.["photo[]"] ??
          (request?.json?.properties?.photo ?? []).map((p) => (p as { value: string }).value);
        assert.deepEqual(
          sentPhotos ?? [],
          preview.photos.map((photo) => photo.url),
        );
      });
    }

    it("a template with appendUrl: always, and the user's own words", async () => {
      const syndicator = new MicropubSyndicator({
        micropubEndpoint: endpoint.url,
        accessToken: "token",
        template: "{{ content | upper }}",
        appendUrl: "always",
      });
      const preview = syndicator.preview(note(), publication);
      assert.equal(
        preview.text,
        "HELLO FROM MY SITE, SEE HTTPS://EXAMPLE.COM/PAGE FOR MORE\n\nhttps://example.org/notes/hello/",
      );
      await syndicator.syndicate(note(), publication, callOptions());
      assert.equal(endpoint.requests.at(-1)?.form?.content?.[0], preview.text);
      await syndicator.syndicate(note(), publication, { ...callOptions(), text: "Mine" });
      assert.equal(endpoint.requests.at(-1)?.form?.content?.[0], "Mine");
    });
  });

  describe("Internet Archive", () => {
    let archive: FakeArchive;
    before(async () => {
      archive = await startFakeArchive({ pendingPolls: 0 });
    });
    after(() => archive.close());

    it("previews the capture of the post's page, and captures that page", async () => {
      const syndicator = new InternetArchiveSyndicator({ serviceUrl: archive.url, pollIntervalMs: 10 }, {});
      const preview = syndicator.preview(note());
      assert.equal(preview.text, undefined);
      await syndicator.syndicate(note(), publication, callOptions());
      assert.deepEqual(preview.action, { kind: "capture", url: archive.captures.at(-1)?.url });
    });
  });
});
