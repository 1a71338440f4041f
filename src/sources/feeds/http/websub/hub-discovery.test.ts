import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { discoverWebSub } from "./hub-discovery.ts";

const URL_FETCHED = "https://site.example/blog/feed.xml";
const discover = (body: string, contentType: string | null, link?: string) =>
  discoverWebSub({
    url: URL_FETCHED,
    headers: new Headers(link ? { link } : {}),
    body: new TextEncoder().encode(body),
    contentType,
  });

describe("WebSub discovery", () => {
  it("reads an Atom feed's hub and self links, resolved against the feed's URL", () => {
    const atom = `<feed xmlns="http://www.w3.org/2005/Atom">
      <link href="/blog/" rel="alternate"/>
      <link href='https://hub.example/?a=1&amp;b=2' rel='hub'/>
      <link rel="self" href="feed.xml?x=&#x31;"/>
    </feed>`;
    assert.deepEqual(discover(atom, "application/atom+xml"), {
      hubs: ["https://hub.example/?a=1&b=2"],
      self: "https://site.example/blog/feed.xml?x=1",
    });
  });

  it("reads atom:link (any prefix) in RSS, and not links inside items", () => {
    const rss = `<rss xmlns:atom10="http://www.w3.org/2005/Atom"><channel>
      <link>https://site.example/</link>
      <atom10:link rel="hub" href="https://pubsubhubbub.appspot.com/"/>
      <atom10:link rel="self" type="application/rss+xml" href="https://site.example/rss"/>
      <item><atom10:link rel="hub" href="https://wrong.example/"/></item>
    </channel></rss>`;
    assert.deepEqual(discover(rss, "application/rss+xml"), {
      hubs: ["https://pubsubhubbub.appspot.com/"],
      self: "https://site.example/rss",
    });
  });

  it("reads an HTML page's <link> elements, rel lists included", () => {
    const html = `<!doctype html><html><head><link rel="alternate hub" href="https://hub.example/">
      <link rel=self href=/blog/></head><body class="h-feed"></body></html>`;
    assert.deepEqual(discover(html, "text/html"), {
      hubs: ["https://hub.example/"],
      self: "https://site.example/blog/",
    });
  });

  it("reads JSON Feed's hubs of type WebSub and its feed_url", () => {
    const json = JSON.stringify({
      version: "https://jsonfeed.org/version/1.1",
      feed_url: "https://site.example/feed.json",
      hubs: [
        { type: "rssCloud", url: "https://cloud.example/" },
        { type: "WebSub", url: "https://hub.example/" },
      ],
    });
    assert.deepEqual(discover(json, "application/feed+json"), {
      hubs: ["https://hub.example/"],
      self: "https://site.example/feed.json",
    });
  });

  it("the Link header wins over the document", () => {
    const atom = `<feed><link rel="hub" href="https://body-hub.example/"/><link rel="self" href="https://site.example/a"/></feed>`;
    const link =
      '<https://header-hub.example/>; rel="hub", <https://other.example/>; rel=hub, </b>; rel="self"';
    assert.deepEqual(discover(atom, "application/atom+xml", link), {
      hubs: ["https://header-hub.example/", "https://other.example/"],
      self: "https://site.example/b",
    });
  });

  it("a quoted comma in a Link header does not split a link", () => {
    const link = '<https://hub.example/>; title="a, b"; rel="hub"';
    assert.deepEqual(discover("", null, link).hubs, ["https://hub.example/"]);
  });

  it("no hub: an empty list, and the fetched URL as the topic", () => {
    assert.deepEqual(discover("<rss><channel></channel></rss>", "application/rss+xml"), {
      hubs: [],
      self: URL_FETCHED,
    });
    assert.deepEqual(discover("{not json", "application/json"), { hubs: [], self: URL_FETCHED });
  });

  it("a hub that is not http(s) is not a hub", () => {
    const atom = `<feed><link rel="hub" href="javascript:alert(1)"/><link rel="hub" href="ftp://x/"/></feed>`;
    assert.deepEqual(discover(atom, "application/atom+xml").hubs, []);
  });
});
