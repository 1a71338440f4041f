// A body that is not a feed is refused with a FeedParseError whose code says what it is and whose
// message the user can act on; nothing else is ever thrown (the feed source shows the message on
// its page and sends nothing). A broken feed is refused whole, not read halfway: entries that a
// truncated feed lost must not look like entries that left the feed.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fixture } from "../../../../test/helpers/feed-fixtures.ts";
import { FeedParseError, type FeedParseErrorCode, parseFeed } from "./index.ts";

const URL = "https://example.com/feed";

function refusal(body: string | Uint8Array, contentType?: string): FeedParseError {
  try {
    parseFeed({ body, contentType, url: URL });
  } catch (error) {
    assert.ok(error instanceof FeedParseError, `threw ${String(error)}`);
    return error;
  }
  assert.fail("the body was read as a feed");
}

function assertRefused(
  body: string | Uint8Array,
  code: FeedParseErrorCode,
  words: RegExp,
  contentType?: string,
) {
  const error = refusal(body, contentType);
  assert.equal(error.code, code, error.message);
  assert.match(error.message, words);
}

describe("bodies that are not feeds", () => {
  it("empty or blank: says so", () => {
    assertRefused("", "empty", /empty response/);
    assertRefused(new Uint8Array(), "empty", /empty response/);
    assertRefused(" \n\t ", "empty", /empty response/);
  });

  it("malformed XML: says where it breaks, and reads none of it", () => {
    assertRefused(
      fixture("broken", "truncated.xml"),
      "malformed-xml",
      /not well-formed XML \(it ends with <rss>, <channel>, <item>, <descripti> still open: the response looks cut off\)/,
    );
    assertRefused(
      '<rss version="2.0"><channel><title>t</title><item><title>a</item></channel></rss>',
      "malformed-xml",
      /not well-formed XML \(line 1, column \d+: .+\)/,
    );
    assertRefused(
      '<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>1</id></entry>',
      "malformed-xml",
      /XML/,
    );
  });

  it("a server's error page served instead of the feed: names it as one", () => {
    assertRefused(
      fixture("broken", "nginx-502.html"),
      "error-page",
      /error page \("502 Bad Gateway"\)/,
      "text/html",
    );
    assertRefused(fixture("broken", "bot-check.html"), "error-page", /"Just a moment\.\.\."/);
  });

  it("the site's own page without an h-feed: names the feed it links to", () => {
    assertRefused(
      fixture("broken", "blog-home-without-h-feed.html"),
      "html-without-h-feed",
      /HTML without an h-feed or h-entry.*names a feed at https:\/\/example\.com\/atom\.xml/,
    );
    assertRefused("<html><body><p>Hello</p></body></html>", "html-without-h-feed", /RSS, Atom or JSON feed/);
  });

  it("JSON that does not parse, or is not a JSON Feed", () => {
    assertRefused(
      '{"version": "https://jsonfeed.org/version/1.1", "items": [',
      "malformed-json",
      /not valid JSON/,
    );
    assertRefused('{"error": "not found"}', "not-a-feed", /not a JSON Feed/);
    assertRefused('{"version": "https://jsonfeed.org/version/1.1", "items": 3}', "not-a-feed", /JSON Feed/);
    assertRefused("[1, 2]", "not-a-feed", /JSON Feed/);
  });

  it("XML of another kind, or no markup at all", () => {
    assertRefused('<?xml version="1.0"?><opml version="2.0"><body/></opml>', "not-a-feed", /OPML/);
    assertRefused("<Error><Code>NoSuchKey</Code></Error>", "not-a-feed", /root element is <Error>/);
    assertRefused("Service temporarily unavailable", "not-a-feed", /neither XML, JSON nor HTML/);
    // Its beginning, blanks collapsed, so that the user sees what came back.
    assertRefused(
      "\n  Service   temporarily\n\n unavailable, try again in a minute or two please",
      "not-a-feed",
      /\(it starts with "Service temporarily unavailable, try"\)/,
    );
  });

  it("cut off in its prolog: names what was left open, where, and that the response looks cut off", () => {
    assertRefused(
      '<?xml version="1.0"?>\n<!-- a comment the response cut',
      "malformed-xml",
      /not well-formed XML \(the .+ that starts on line 2 never ends: the response looks cut off\)/,
    );
  });

  it("a root element of a feed with nothing a feed has", () => {
    assertRefused('<rss version="2.0"></rss>', "not-a-feed", /<rss>/);
  });

  it("never expands a doctype's entities (billion laughs): refused or read, and quickly", () => {
    const laughs = `<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;"><!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;">]><rss version="2.0"><channel><title>t</title><item><guid>1</guid><description>&g;</description></item></channel></rss>`;
    let length = 0;
    try {
      length = JSON.stringify(parseFeed({ body: laughs, url: URL })).length;
    } catch (error) {
      assert.ok(error instanceof FeedParseError);
    }
    // Expanded, the entity would be 2 million characters.
    assert.ok(length < 10_000, `${length} characters`);
  });
});
