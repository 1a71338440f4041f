// Every date form the formats use is read to the same instant, and what cannot be read is no date:
// never the time of reading (which would make an old entry look new and flood the targets).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseFeedDate } from "./feed-date.ts";
import { parseFeed } from "./index.ts";

const NOON = "2025-09-01T12:00:00.000Z";

describe("feed dates", () => {
  const same: Array<[string, string]> = [
    ["RFC 822 with GMT", "Mon, 01 Sep 2025 12:00:00 GMT"],
    ["RFC 822 with a numeric zone", "Mon, 01 Sep 2025 14:00:00 +0200"],
    ["RFC 822 with a colon in the zone", "Mon, 01 Sep 2025 14:00:00 +02:00"],
    ["RFC 822 with a named US zone", "Mon, 01 Sep 2025 08:00:00 EDT"],
    ["RFC 822 without a day name or seconds", "1 Sep 2025 12:00 UT"],
    ["RFC 822 with a full month and day name", "Monday, 01 September 2025 12:00:00 Z"],
    ["RFC 822 with a two-digit year", "Mon, 01 Sep 25 12:00:00 GMT"],
    ["RFC 822 without a zone (read as UTC)", "Mon, 01 Sep 2025 12:00:00"],
    ["RFC 3339", "2025-09-01T12:00:00Z"],
    ["RFC 3339 with an offset", "2025-09-01T07:00:00-05:00"],
    ["RFC 3339 with a fraction", "2025-09-01T12:00:00.000000Z"],
    ["W3CDTF without seconds (dc:date)", "2025-09-01T12:00Z"],
    ["microformats: a space, an offset without colon", "2025-09-01 14:00:00+0200"],
    ["ISO 8601 without a zone (read as UTC)", "2025-09-01T12:00:00"],
    ["surrounded by whitespace", "\n   2025-09-01T12:00:00Z \t"],
  ];
  for (const [form, text] of same) {
    it(`reads ${form}`, () => assert.equal(parseFeedDate(text)?.toISOString(), NOON));
  }

  it("reads a date alone as its midnight UTC", () => {
    assert.equal(parseFeedDate("2025-09-01")?.toISOString(), "2025-09-01T00:00:00.000Z");
    assert.equal(parseFeedDate("2025-09")?.toISOString(), "2025-09-01T00:00:00.000Z");
  });

  it("reads a two-digit year below 50 in the 2000s and above in the 1900s (RFC 2822)", () => {
    assert.equal(parseFeedDate("01 Sep 49 00:00 GMT")?.getUTCFullYear(), 2049);
    assert.equal(parseFeedDate("01 Sep 99 00:00 GMT")?.getUTCFullYear(), 1999);
  });

  for (const text of [
    "",
    "   ",
    "yesterday",
    "2025-13-01T00:00:00Z",
    "2025-02-30T00:00:00Z",
    "2025-09-01T25:00:00Z",
    "Mon, 32 Sep 2025 12:00:00 GMT",
    "Mon, 01 Foo 2025 12:00:00 GMT",
    "Mon, 01 Sep 2025 12:00:00 +9900",
    "1756728000",
  ]) {
    it(`reads ${JSON.stringify(text)} as no date`, () => assert.equal(parseFeedDate(text), undefined));
  }

  it("leaves an entry without a date, or with an unreadable one, undated and says why", () => {
    const feed = parseFeed({
      url: "https://example.com/feed.xml",
      body: `<rss version="2.0"><channel><title>t</title>
        <item><guid>a</guid><description>no date</description></item>
        <item><guid>b</guid><description>bad date</description><pubDate>sometime soon</pubDate></item>
      </channel></rss>`,
    });
    const [undated, unreadable] = feed.entries;
    assert.equal(undated?.published, undefined);
    assert.equal(undated?.properties.published, undefined);
    assert.deepEqual(undated?.problems, []);
    assert.equal(unreadable?.published, undefined);
    assert.equal(unreadable?.properties.published, undefined);
    assert.deepEqual(unreadable?.problems, [
      'The published date "sometime soon" could not be read; it is left out.',
    ]);
    assert.deepEqual(feed.problems, [
      {
        kind: "entry",
        entry: "id:b",
        message: 'The published date "sometime soon" could not be read; it is left out.',
      },
    ]);
  });
});
