// Plain text shown on the pages store's page: its links are found in the text as written, then
// escaped, so that a link never takes in the escaped form of the character that ends it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { contentHtml, textAsHtml } from "./safe-html.ts";

describe("textAsHtml", () => {
  it("ends a link before a < that follows it directly, never taking in &lt;", () => {
    assert.equal(
      textAsHtml("see https://a.example/x<b>bold</b>"),
      `<p>see <a href="https://a.example/x">https://a.example/x</a>&lt;b&gt;bold&lt;/b&gt;</p>`,
    );
  });

  it("ends a link before a quote or > that follows it directly", () => {
    assert.equal(
      textAsHtml(`"https://a.example/y" and https://a.example/z>`),
      `<p>&quot;<a href="https://a.example/y">https://a.example/y</a>&quot; and <a href="https://a.example/z">https://a.example/z</a>&gt;</p>`,
    );
  });

  it("escapes the link's & in its address and its text", () => {
    assert.equal(
      textAsHtml("https://a.example/?q=1&r=2."),
      `<p><a href="https://a.example/?q=1&amp;r=2">https://a.example/?q=1&amp;r=2</a>.</p>`,
    );
  });

  it("keeps an apostrophe inside a link and leaves a closing one out", () => {
    assert.equal(
      textAsHtml("'https://a.example/it's'"),
      `<p>&#39;<a href="https://a.example/it&#39;s">https://a.example/it&#39;s</a>&#39;</p>`,
    );
  });

  it("makes plain http links clickable too", () => {
    assert.equal(textAsHtml("http://a.example/"), `<p><a href="http://a.example/">http://a.example/</a></p>`);
  });

  it("keeps line breaks within a paragraph and splits paragraphs on blank lines, dropping empty ones", () => {
    assert.equal(textAsHtml("one\ntwo\n\n\nthree"), "<p>one<br>two</p>\n<p>three</p>");
    assert.equal(textAsHtml("\n\n  one  \n\n \n\n"), "<p>one</p>");
  });
});

describe("contentHtml", () => {
  it("is empty for content that is neither text nor an object of it", () => {
    assert.equal(contentHtml(null), "");
    assert.equal(contentHtml(42), "");
    assert.equal(contentHtml({ other: "x" }), "");
  });
});
