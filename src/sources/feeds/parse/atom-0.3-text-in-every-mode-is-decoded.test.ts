// Atom 0.3 (Blogger's and Movable Type's feeds of 2003–2006) gives its text constructs a mode:
// "base64" text is decoded (UTF-8), "escaped" markup is HTML, "xml" (the default) is the inline
// markup itself; the media type then says whether it is HTML or plain text, and base64 of a type
// that is not text (an image) is no text at all.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fixture } from "../../../../test/helpers/feed-fixtures.ts";
import { parseFeed } from "./index.ts";

describe("Atom 0.3's modes", () => {
  const feed = parseFeed({
    body: fixture("real-world", "atom-0.3.xml"),
    url: "https://alt.example/atom.xml",
  });
  const byId = (n: number) => feed.entries.find((entry) => entry.id === `tag:alt.example,2004:${n}`);

  it("base64 title, summary and content are decoded, the feed's title too", () => {
    assert.equal(feed.format, "atom");
    assert.equal(feed.title, "Ein Blog");
    const entry = byId(1);
    assert.equal(entry?.title, "Grüße aus Köln");
    assert.equal(entry?.summary, "Ein kurzer Gruß.");
    assert.equal(entry?.contentHtml, "<p>Viele <em>Grüße</em> aus Köln.</p>");
    assert.equal(entry?.contentText, "Viele Grüße aus Köln.");
    assert.equal(entry?.published?.toISOString(), "2004-01-04T11:00:00.000Z");
  });

  it("base64 wrapped over several lines is decoded whole; base64 of an image is no text", () => {
    const entry = byId(4);
    assert.equal(
      entry?.contentHtml,
      "<p>A long text, wrapped at 76 columns by the encoder as MIME does it, over several lines.</p>",
    );
    assert.equal(entry?.summary, undefined);
    // The other modes of the same feed: escaped markup is HTML, inline XHTML (mode xml) its markup.
    assert.equal(byId(2)?.contentHtml, "<p>Escaped <b>markup</b>.</p>");
    assert.equal(byId(3)?.contentHtml, "<p>Inline <i>XHTML</i>.</p>");
  });
});
