import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import { type FakePds, startFakePds } from "../fakes/bluesky-pds.ts";
import { type PhotoServer, startPhotoServer } from "../fakes/photo-server.ts";
import { pngBytes } from "../fakes/png.ts";
import { callOptions, note, publication, siteServedBy } from "./fixtures.ts";

interface Facet {
  index: { byteStart: number; byteEnd: number };
  features: { $type: string; uri?: string; did?: string; tag?: string }[];
}
interface Post {
  text: string;
  facets?: Facet[];
  langs?: string[];
  embed?: { images?: { alt: string; aspectRatio?: { width: number; height: number } }[] };
}

/** Each facet as [the text it covers (by UTF-8 bytes), its feature], easy to compare. */
function marked(post: Post): [string, Record<string, string>][] {
  const bytes = Buffer.from(post.text, "utf8");
  return (post.facets ?? []).map((facet) => {
    const { $type, ...feature } = facet.features[0] ?? { $type: "" };
    return [
      bytes.subarray(facet.index.byteStart, facet.index.byteEnd).toString("utf8"),
      { type: $type.replace("app.bsky.richtext.facet#", ""), ...(feature as Record<string, string>) },
    ];
  });
}

describe("Bluesky: facets as the official client makes them, categories, langs and aspect ratio", () => {
  let pds: FakePds;
  let photos: PhotoServer;
  let syndicator: BlueskySyndicator;
  const send = async (properties: Parameters<typeof note>[0], site = publication) => {
    await syndicator.syndicate(note(properties), site, callOptions());
    return pds.records.at(-1)?.value as unknown as Post;
  };

  before(async () => {
    pds = await startFakePds({
      handle: "alice.example.com",
      password: "pw",
      knownHandles: { "bob.example.net": "did:plc:bob00000000000000000000" },
    });
    photos = await startPhotoServer();
    syndicator = new BlueskySyndicator({ handle: "alice.example.com", password: "pw", serviceUrl: pds.url });
  });
  after(() => Promise.all([pds.close(), photos.close()]));

  it("marks mentions (resolved to DIDs), #hashtags, bare domains and links at byte offsets", async () => {
    const post = await send({
      content:
        "Grüße 👋🏽 @bob.example.net and @nobody.example.org: #IndieWeb on example.com and https://example.net/x",
    });
    assert.deepEqual(marked(post), [
      ["@bob.example.net", { type: "mention", did: "did:plc:bob00000000000000000000" }],
      ["#IndieWeb", { type: "tag", tag: "IndieWeb" }],
      ["example.com", { type: "link", uri: "https://example.com" }],
      ["https://example.net/x", { type: "link", uri: "https://example.net/x" }],
    ]);
    const lookups = pds.calls.filter((call) => call.nsid === "com.atproto.identity.resolveHandle");
    assert.deepEqual(
      lookups.map((call) => call.status),
      [200, 400],
      "both handles were looked up; the unknown one stays plain text",
    );
  });

  it("adds the post's categories as hashtags, marked as tags", async () => {
    const post = await send({ content: "A walk by the river", category: ["walks", "indie web", "2024"] });
    assert.equal(post.text, "A walk by the river\n\n#walks #IndieWeb");
    assert.deepEqual(marked(post), [
      ["#walks", { type: "tag", tag: "walks" }],
      ["#IndieWeb", { type: "tag", tag: "IndieWeb" }],
    ]);
  });

  it("leaves categories out when includeCategories is false", async () => {
    const plain = new BlueskySyndicator({
      handle: "alice.example.com",
      password: "pw",
      serviceUrl: pds.url,
      includeCategories: false,
    });
    await plain.syndicate(note({ content: "No tags", category: ["walks"] }), publication, callOptions());
    assert.equal((pds.records.at(-1)?.value as unknown as Post | undefined)?.text, "No tags");
  });

  it("names the post's language in langs, and none when it has none or an invalid one", async () => {
    assert.deepEqual((await send({ content: "Guten Tag", lang: "de-CH" })).langs, ["de-CH"]);
    assert.equal((await send({ content: "No language" })).langs, undefined);
    assert.equal((await send({ content: "Bad language", lang: "not a language" })).langs, undefined);
  });

  it("gives each photo its aspect ratio, read from the image's header", async () => {
    const wide = photos.add("/wide.png", pngBytes(300, 200), "image/png");
    const tall = photos.add("/tall.png", pngBytes(90, 160), "image/png");
    const post = await send(
      {
        photo: [
          { url: wide, alt: "Wide" },
          { url: tall, alt: "Tall" },
        ],
      },
      siteServedBy(photos.url),
    );
    assert.deepEqual(
      post.embed?.images?.map((image) => image.aspectRatio),
      [
        { width: 300, height: 200 },
        { width: 90, height: 160 },
      ],
    );
  });
});
