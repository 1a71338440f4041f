// Decision 0047: one HTML-to-text (src/contract/plain-text.ts). A Micropub client that
// sends HTML only (Quill and most others) must not see its post reach Mastodon as
// "See this page&hellip; &mdash; ok & more": every entity class becomes its character, in text and
// in attributes, link addresses stay, and a stored `content.text` made by a worse converter never wins.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { contentText } from "../../src/contract/jf2.ts";
import { decodeEntities, htmlToText } from "../../src/contract/plain-text.ts";
import { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { MicropubSyndicator } from "../../src/syndicators/micropub/index.ts";
import { type FakePds, startFakePds } from "../fakes/bluesky-pds.ts";
import { type FakeMicropub, startFakeMicropub } from "../fakes/micropub-endpoint.ts";
import { pgliteEngine } from "../helpers/databases.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { callOptions, note, publication } from "./fixtures.ts";

/** The issue's post, as Quill sends it. */
const issueHtml = '<p>See <a href="https://x.example/a">this page</a>&hellip; &mdash; ok &amp; more</p>';
const issueText = "See this page (https://x.example/a)… — ok & more";

/** One HTML per entity class, and the text each must become. */
const entityClasses: [string, string, string][] = [
  ["named", "<p>&hellip; &mdash; &eacute;t&eacute; &amp; &lt;3 &copy; &euro;</p>", "… — été & <3 © €"],
  ["decimal", "<p>&#8230; &#8212; &#233; &#38; &#128578;</p>", "… — é & 🙂"],
  ["hexadecimal", "<p>&#x2026; &#X2014; &#xe9; &#x26; &#x1F642;</p>", "… — é & 🙂"],
  [
    "in an attribute",
    '<p><a href="https://x.example/?a=1&amp;b=&#50;&#x33;&lt;">q</a></p>',
    "q (https://x.example/?a=1&b=23<)",
  ],
];

describe("One HTML-to-text: every entity class", () => {
  for (const [name, html, text] of entityClasses) {
    it(`${name} entities become their characters`, () => {
      assert.equal(htmlToText(html), text);
    });
  }

  it("decodes once: an escaped entity stays an entity's text", () => {
    assert.equal(htmlToText("<p>&amp;hellip; is how you write &hellip;</p>"), "&hellip; is how you write …");
  });

  it("keeps a link's address after its text, once when the text is the address, never a relative one", () => {
    assert.equal(htmlToText(issueHtml), issueText);
    assert.equal(
      htmlToText('<p><a href="https://x.example/a">x.example/a</a> <a href="/rel">here</a></p>'),
      "https://x.example/a here",
    );
    assert.equal(htmlToText(issueHtml, { links: "drop" }), "See this page… — ok & more");
  });

  it("decodes an attribute value alone (a link card's og:image)", () => {
    assert.equal(
      decodeEntities("https://x.example/i.png?w=1&amp;h=&#x32;"),
      "https://x.example/i.png?w=1&h=2",
    );
  });

  it("prefers the HTML to a stored text written by a worse converter", () => {
    const stored = { content: { html: issueHtml, text: "See this page&hellip; &mdash; ok & more" } };
    assert.equal(contentText(stored), issueText);
    assert.equal(contentText({ content: { text: "Plain only", html: "" } }), "Plain only");
  });
});

describe("One HTML-to-text: what each syndicator sends", () => {
  const htmlOnly = note({ content: { html: issueHtml } });
  let sandbox: MastodonSandbox;
  let pds: FakePds;
  let micropub: FakeMicropub;
  before(async () => {
    sandbox = await startMastodonSandbox({ accessToken: "token", user: "alice" });
    pds = await startFakePds({ handle: "alice.example.com", password: "app-password" });
    micropub = await startFakeMicropub({ token: "their-token" });
  });
  after(() => Promise.all([sandbox.close(), pds.close(), micropub.close()]));

  it("Mastodon: the status has the characters and the link's address", async () => {
    const mastodon = new MastodonSyndicator({ url: sandbox.url, user: "alice", accessToken: "token" });
    await mastodon.syndicate(htmlOnly, publication, callOptions());
    assert.equal(sandbox.statuses.at(-1)?.text, issueText);
  });

  it("Bluesky: the record has the characters, and the link's address (not the bracket after it) is a link facet", async () => {
    const bluesky = new BlueskySyndicator({
      handle: "alice.example.com",
      password: "app-password",
      serviceUrl: pds.url,
    });
    await bluesky.syndicate(htmlOnly, publication, callOptions(undefined, 20_000));
    const record = pds.records.at(-1)?.value as {
      text: string;
      facets?: { index: { byteStart: number; byteEnd: number }; features: { uri?: string }[] }[];
    };
    assert.equal(record.text, issueText);
    const [facet] = record.facets ?? [];
    assert.equal(facet?.features[0]?.uri, "https://x.example/a");
    const bytes = new TextEncoder().encode(record.text);
    assert.equal(
      new TextDecoder().decode(bytes.slice(facet?.index.byteStart, facet?.index.byteEnd)),
      "https://x.example/a",
    );
  });

  it("Micropub: the other site gets the HTML as it is, and a template's text has the characters", async () => {
    const other = new MicropubSyndicator({ micropubEndpoint: micropub.url, accessToken: "their-token" }, {});
    await other.syndicate(htmlOnly, publication, callOptions());
    assert.deepEqual(micropub.requests.at(-1)?.json?.properties?.content, [{ html: issueHtml }]);
    const templated = new MicropubSyndicator(
      { micropubEndpoint: micropub.url, accessToken: "their-token", template: "{{ content }}" },
      {},
    );
    await templated.syndicate(htmlOnly, publication, callOptions());
    const request = micropub.requests.at(-1);
    assert.deepEqual(request?.form?.content ?? request?.json?.properties?.content, [issueText]);
  });

  for (const [name, html, text] of entityClasses) {
    it(`Mastodon and Bluesky: ${name} entities arrive as characters`, async () => {
      const post = note({ content: { html } });
      const mastodon = new MastodonSyndicator({ url: sandbox.url, user: "alice", accessToken: "token" });
      await mastodon.syndicate(post, publication, callOptions());
      assert.ok(sandbox.statuses.at(-1)?.text.startsWith(text), sandbox.statuses.at(-1)?.text);
      const bluesky = new BlueskySyndicator({
        handle: "alice.example.com",
        password: "app-password",
        serviceUrl: pds.url,
      });
      await bluesky.syndicate(post, publication, callOptions(undefined, 20_000));
      const record = pds.records.at(-1)?.value as { text: string };
      assert.ok(record.text.startsWith(text), record.text);
    });
  }
});

describe("One HTML-to-text: a Micropub post with HTML only, through the host", () => {
  let server: TestServer;
  let sandbox: MastodonSandbox;
  let pds: FakePds;
  let mastodonUid: string;
  let blueskyUid: string;
  before(async () => {
    sandbox = await startMastodonSandbox({ accessToken: "token", user: "alice" });
    pds = await startFakePds({ handle: "alice.example.com", password: "app-password" });
    const mastodon = new MastodonSyndicator({ url: sandbox.url, user: "alice", accessToken: "token" });
    const bluesky = new BlueskySyndicator({
      handle: "alice.example.com",
      password: "app-password",
      serviceUrl: pds.url,
    });
    mastodonUid = mastodon.info.uid;
    blueskyUid = bluesky.info.uid;
    server = await startTestServer({
      engine: pgliteEngine,
      config: {
        plugins: ["@possekit/endpoint-syndicate"],
        publication: { me: "https://example.org/", postUrlPattern: "{me}notes/{slug}/" },
      },
      plugins: [mastodon, bluesky],
    });
  });
  after(async () => {
    await server.close();
    await Promise.all([sandbox.close(), pds.close()]);
  });

  it("reaches the sandbox Mastodon and Bluesky as correct text, and q=source's text is the same", async () => {
    const token = await server.token("create update");
    const created = await fetch(`${server.url}/micropub`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        type: ["h-entry"],
        properties: { content: [{ html: issueHtml }], "mp-syndicate-to": [mastodonUid, blueskyUid] },
      }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    const url = created.headers.get("location") ?? "";
    const stored = await server.host.posts?.findByUrl(url);
    assert.equal((stored?.properties.content as { text?: string } | undefined)?.text, issueText);
    const run = await fetch(`${server.url}/syndicate?source_url=${encodeURIComponent(url)}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
    });
    const result = (await run.json()) as { status: string };
    assert.equal(result.status, "syndicated", JSON.stringify(result));
    assert.ok(sandbox.statuses.at(-1)?.text.startsWith(issueText), sandbox.statuses.at(-1)?.text);
    const record = pds.records.at(-1)?.value as { text: string };
    assert.ok(record.text.startsWith(issueText), record.text);
  });
});
