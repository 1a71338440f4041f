// What the pages store serves must be read right by feed readers and browsers: the Atom feed is
// well-formed XML whatever the post says, and a post written as plain text is shown as text, never
// run as markup on the owner's origin.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { atomFeed, type PostView } from "./pages-routes.ts";
import { contentHtml } from "./safe-html.ts";

const HOSTILE = `Tom & Jerry's "<b>best</b>" <script>alert(1)</script> ]]> <!-- x`;
const view = (extra: Partial<PostView> = {}): PostView => ({
  url: "https://blog.example/notes/1?a=1&b=2",
  html: contentHtml(HOSTILE),
  published: new Date(Date.UTC(2026, 0, 1)),
  updated: new Date(Date.UTC(2026, 0, 2)),
  photos: [],
  categories: [`a "quoted" & <tag>`, "it's"],
  syndication: [],
  ...extra,
});
const site = {
  name: `Me & "my" <blog>`,
  me: "https://blog.example/?x=1&y=2",
  feedUrl: "https://blog.example/feed.xml",
};

describe("the Atom feed", () => {
  it("is well-formed XML whatever the names, URLs, categories and contents hold", () => {
    const xml = atomFeed(
      [
        view({ name: HOSTILE }),
        view({ url: "https://blog.example/notes/2", html: "<p>A <em>short</em> note</p>" }),
      ],
      site,
    );
    assert.equal(XMLValidator.validate(xml), true, xml);
    const feed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(xml).feed;
    assert.equal(feed.title, site.name);
    assert.equal(feed.id, site.me);
    assert.equal(feed.entry[0].title, HOSTILE, "the title is the text the post named, exactly");
    assert.equal(feed.entry[0].id, "https://blog.example/notes/1?a=1&b=2");
    assert.deepEqual(
      feed.entry[0].category.map((category: { term: string }) => category.term),
      [`a "quoted" & <tag>`, "it's"],
    );
    assert.equal(feed.entry[0].content["#text"], view().html, "the content is the page's HTML, escaped once");
    // Without a name, the title is the content's text.
    assert.equal(feed.entry[1].title, "A short note");
  });

  it("titles a note without a name with its text as read, not as HTML escapes it", () => {
    const xml = atomFeed([view({ html: "<p>Tom &amp; Jerry &lt;3 &quot;cheese&quot;</p>" })], site);
    const feed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(xml).feed;
    assert.equal(feed.entry.title, `Tom & Jerry <3 "cheese"`);
  });
});

describe("plain-text content on the page", () => {
  it("is escaped, as a string and as {text} or {value}, its links made clickable", () => {
    const expected = `<p>Tom &amp; Jerry&#39;s &quot;&lt;b&gt;best&lt;/b&gt;&quot; &lt;script&gt;alert(1)&lt;/script&gt; ]]&gt; &lt;!-- x</p>`;
    assert.equal(contentHtml(HOSTILE), expected);
    assert.equal(contentHtml({ text: HOSTILE }), expected);
    assert.equal(contentHtml({ value: HOSTILE }), expected);
    assert.equal(
      contentHtml("one\n\nsee https://a.example/?q=1&r=2, <i>now</i>"),
      `<p>one</p>\n<p>see <a href="https://a.example/?q=1&amp;r=2">https://a.example/?q=1&amp;r=2</a>, &lt;i&gt;now&lt;/i&gt;</p>`,
    );
  });
});
