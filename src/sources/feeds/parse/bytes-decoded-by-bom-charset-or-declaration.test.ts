// A feed's bytes are decoded as XML and HTML readers do: a byte order mark first, then the
// Content-Type's charset, then the document's own declaration (XML encoding, HTML meta charset),
// else UTF-8. A site still serving ISO-8859-1 or UTF-16 has its accents read right.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseFeed } from "./index.ts";

const URL = "https://example.com/feed.xml";
const rssText = (declaration: string) =>
  `${declaration}<rss version="2.0"><channel><title>Café</title><item><guid>1</guid><title>Crème brûlée</title></item></channel></rss>`;

const latin1 = (text: string) => new Uint8Array(Buffer.from(text, "latin1"));

describe("decoding a feed's bytes", () => {
  it("by the XML declaration's encoding", () => {
    const feed = parseFeed({
      url: URL,
      body: latin1(rssText('<?xml version="1.0" encoding="ISO-8859-1"?>')),
    });
    assert.equal(feed.title, "Café");
    assert.equal(feed.entries[0]?.title, "Crème brûlée");
  });

  it("by the Content-Type's charset before the declaration", () => {
    const body = latin1(rssText('<?xml version="1.0" encoding="UTF-8"?>'));
    assert.equal(
      parseFeed({ url: URL, body, contentType: "application/rss+xml; charset=iso-8859-1" }).title,
      "Café",
    );
  });

  it("by a byte order mark before anything else", () => {
    const utf16 = new Uint8Array(
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(rssText(""), "utf16le")]),
    );
    assert.equal(parseFeed({ url: URL, body: utf16, contentType: "text/xml; charset=utf-8" }).title, "Café");
    const utf8 = new Uint8Array(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(rssText(""))]));
    assert.equal(parseFeed({ url: URL, body: utf8 }).entries[0]?.title, "Crème brûlée");
  });

  it("by an HTML page's meta charset", () => {
    const page = `<!doctype html><html><head><meta charset="windows-1252"><title>x</title></head><body>
      <div class="h-entry"><p class="p-name">Crème</p><p class="e-content">“brûlée”</p></div></body></html>`;
    const feed = parseFeed({
      url: URL,
      body: new Uint8Array(
        Buffer.from(
          page.replace(/[“”]/g, (q) => (q === "“" ? "\x93" : "\x94")),
          "latin1",
        ),
      ),
    });
    assert.equal(feed.entries[0]?.title, "Crème");
    assert.equal(feed.entries[0]?.contentText, "“brûlée”");
  });

  it("as UTF-8 without any of these, and with an unknown charset label", () => {
    const body = new Uint8Array(Buffer.from(rssText("")));
    assert.equal(parseFeed({ url: URL, body }).title, "Café");
    assert.equal(
      parseFeed({ url: URL, body, contentType: "text/xml; charset=x-no-such-thing" }).title,
      "Café",
    );
  });
});
