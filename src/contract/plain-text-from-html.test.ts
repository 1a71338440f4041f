import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { postText } from "./jf2.ts";
import { htmlToText } from "./plain-text.ts";

describe("Post text for a copy", () => {
  it("prefers the name, then the summary, then the content", () => {
    assert.deepEqual(postText({ name: "Title", summary: "Sum", content: "Body" }), {
      text: "Title",
      source: "name",
    });
    assert.deepEqual(postText({ summary: "Sum", content: "Body" }), { text: "Sum", source: "summary" });
    assert.deepEqual(postText({ content: { text: "Body", html: "<p>Body</p>" } }), {
      text: "Body",
      source: "content",
    });
    assert.deepEqual(postText({ content: { html: "<p>Only <em>HTML</em></p>" } }), {
      text: "Only HTML",
      source: "content",
    });
    assert.equal(postText({ photo: [{ url: "https://example.org/a.jpg" }] }), undefined);
  });

  it("makes HTML plain: paragraphs, line breaks, lists, entities, links", () => {
    assert.equal(
      htmlToText(
        '<p>One &amp; <b>two</b></p><p>Three<br/>four</p><ul><li>a</li><li>b</li></ul><p><a href="https://x.example/">https://x.example/</a> &#8212; <a href="/rel">relative</a> &lt;3</p>',
      ),
      "One & two\n\nThree\nfour\n\n- a\n- b\n\nhttps://x.example/ — relative <3",
    );
  });

  it("decodes an entity once only", () => {
    assert.equal(htmlToText("<p>&amp;lt; is how you write &lt;</p>"), "&lt; is how you write <");
  });

  it("drops scripts and styles", () => {
    assert.equal(htmlToText("<style>p{}</style><p>Seen</p><script>alert(1)</script>"), "Seen");
  });
});
