// A feed with a doctype is read like any other: its internal subset (general and parameter
// entities, comments, a quoted "]>") is skipped, never expanded (billion laughs) and never fetched
// (an external DTD, external entities, pointing at a server here that counts requests, and at
// /etc/passwd). A body that cannot be read says why: where the XML breaks (the line of the
// document, doctype included), what an RSS, RSS 1.0 or Atom document lacks, what a JSON document
// lacks to be a JSON Feed.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { FeedParseError, parseFeed } from "../../src/sources/feeds/parse/index.ts";
import { fixture } from "./parse/helpers.ts";

const URL = "https://subset.example/feed";

function refusal(body: string): FeedParseError {
  try {
    parseFeed({ body, url: URL });
  } catch (error) {
    assert.ok(error instanceof FeedParseError, `threw ${String(error)}`);
    return error;
  }
  assert.fail("the body was read as a feed");
}

describe("a doctype", () => {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(request.url ?? "");
    response.writeHead(200, { "content-type": "application/xml-dtd" }).end('<!ENTITY leak "LEAKED">');
  });
  let origin = "";
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("with an internal subset of entities and parameter entities is skipped, and the feed read", () => {
    const feed = parseFeed({ body: fixture("real-world", "doctype-internal-subset.xml"), url: URL });
    assert.equal(feed.format, "rss");
    assert.equal(feed.title, "Subset Times");
    assert.equal(feed.entries.length, 1);
    const [entry] = feed.entries;
    assert.equal(entry?.title, "Café opens");
    assert.equal(entry?.url, "https://subset.example/cafe");
    // An entity only the subset declares stays as written: nothing is expanded.
    assert.equal(entry?.contentText, "The &site; café is open.");
    // Broken further on, such a feed is told by the line of the document, doctype included.
    const broken = refusal(`<?xml version="1.0"?>
<!DOCTYPE rss [
  <!ENTITY % p "x">
  <!ENTITY nbsp "&#160;">
]>
<rss version="2.0"><channel><title>t</title>
<item><title>a</item>
</channel></rss>`);
    assert.equal(broken.code, "malformed-xml");
    assert.match(broken.message, /not well-formed XML \(line 7, column \d+: /);
  });

  it("naming an external DTD and external entities fetches nothing and reads no file", () => {
    const body = `<?xml version="1.0"?>
<!DOCTYPE rss SYSTEM "${origin}/rss.dtd" [
  <!ENTITY % remote SYSTEM "${origin}/remote.ent">
  %remote;
  <!ENTITY passwd SYSTEM "file:///etc/passwd">
  <!ENTITY page SYSTEM "${origin}/page">
]>
<rss version="2.0"><channel><title>External</title><link>https://subset.example/</link>
<description>d</description>
<item><guid>1</guid><title>Secrets: &passwd; &page; &leak;</title><description>&passwd;</description></item>
</channel></rss>`;
    const feed = parseFeed({ body, url: URL });
    assert.equal(feed.entries[0]?.title, "Secrets: &passwd; &page; &leak;");
    const text = JSON.stringify(feed);
    assert.ok(!text.includes("root:") && !text.includes("LEAKED"), text);
    assert.deepEqual(requests, []);
    // Nor is anything expanded: a billion laughs stay as written.
    const laughs = parseFeed({ body: fixture("real-world", "billion-laughs.xml"), url: URL });
    assert.equal(laughs.entries[0]?.title, "Laughing &i;");
    assert.equal(laughs.entries[0]?.contentText, "&i;");
    assert.ok(JSON.stringify(laughs).length < 5_000);
  });
});

describe("a refusal says why", () => {
  it("an RSS, RSS 1.0 or Atom root without what the format puts in it", () => {
    const rss = refusal('<?xml version="1.0"?><rss version="2.0"><items/></rss>');
    assert.equal(rss.code, "not-a-feed");
    assert.equal(
      rss.message,
      "The document's root element is <rss>, but it has no <channel>, the element that holds an RSS feed's title and items.",
    );
    assert.match(
      refusal('<rss version="2.0"><channel></channel></rss>').message,
      /its <channel> has nothing of a feed in it/,
    );
    assert.match(
      refusal('<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description/></rdf:RDF>')
        .message,
      /it has no <channel> or <item> of RSS 1\.0/,
    );
    assert.match(
      refusal('<feed xmlns="http://www.w3.org/2005/Atom"></feed>').message,
      /none of Atom's elements/,
    );
  });

  it("JSON that is not a JSON Feed: what it lacks", () => {
    const cases: Array<[string, string]> = [
      ['{"error": "not found"}', 'it has no "version"'],
      ['{"version": "2.0", "items": []}', 'its "version" is "2.0", not a JSON Feed version'],
      ['{"version": "https://jsonfeed.org/version/1.1", "title": "t"}', 'it has no "items"'],
      ['{"version": "https://jsonfeed.org/version/1.1", "items": {}}', 'its "items" is not an array'],
      ["[1, 2]", "it is an array, not an object"],
    ];
    for (const [body, why] of cases) {
      const error = refusal(body);
      assert.equal(error.code, "not-a-feed");
      assert.equal(
        error.message,
        `The address returned JSON that is not a JSON Feed: ${why} (a JSON Feed has "version": "https://jsonfeed.org/version/1.1" and an "items" array).`,
      );
    }
  });
});
