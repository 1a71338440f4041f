// The feed parser's thread (src/sources/feeds/parse/feed-parser.ts) on its own: a read past its time
// limit or its memory is ended and told as such, the next read runs on a fresh thread, a shutdown
// ends a read under way, and only the newest entries cross back to the server's thread.
// Integration tier: each case starts a worker_thread.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { FeedParser } from "../../../src/sources/feeds/parse/feed-parser.ts";
import { FeedParseError } from "../../../src/sources/feeds/parse/index.ts";

const url = "https://blog.example/";
const nested = (depth: number) =>
  `<!doctype html><html><body><main class="h-feed"><article class="h-entry"><a class="u-url" href="/1/">1</a>
<div class="e-content">${"<div>".repeat(depth)}A comment.${"</div>".repeat(depth)}</div></article></main></body></html>`;
const jsonFeed = (count: number) =>
  JSON.stringify({
    version: "https://jsonfeed.org/version/1.1",
    items: Array.from({ length: count }, (_, n) => ({
      id: String(n),
      url: `${url}${n}/`,
      content_html: `<p>Entry <b>${n}</b></p>`,
      date_published: new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString(),
    })),
  });

async function refused(read: Promise<unknown>): Promise<FeedParseError> {
  const error = await read.then(
    () => assert.fail("the read was expected to fail"),
    (reason: unknown) => reason,
  );
  assert.ok(error instanceof FeedParseError, String(error));
  return error;
}

describe("the feed parser's thread", () => {
  // The server's limits: generous for an ordinary feed however busy the machine.
  const parser = new FeedParser();
  // Short, for a page that needs far longer (27 s and more on two cores): counted from the moment the
  // thread has loaded its modules, so a slow start on a busy machine is not taken for a slow page.
  const impatient = new FeedParser({ timeLimitMs: 2000 });
  after(() => Promise.all([parser.close(), impatient.close()]));

  it("hands back the newest entries only, with their text made, and how many it left out", async () => {
    const { feed, total, omitted } = await parser.parse({ url, body: jsonFeed(500) }, 50);
    assert.equal(total, 500);
    assert.equal(omitted, 450);
    assert.deepEqual(
      feed.entries.map((entry) => entry.id),
      Array.from({ length: 50 }, (_, n) => String(n + 450)),
    );
    assert.equal(feed.entries[0]?.contentText, "Entry 450");
    assert.ok(feed.entries[0]?.published instanceof Date, "dates cross the thread as dates");
  });

  it("ends a read past its time limit, and reads the next on a fresh thread", async () => {
    const error = await refused(impatient.parse({ url, body: nested(50_000) }, 50));
    assert.equal(error.code, "too-slow");
    assert.match(error.message, /^Reading the feed took longer than 2 s, so it was stopped/);
    const { total } = await impatient.parse({ url, body: jsonFeed(3) }, 50);
    assert.equal(total, 3);
  });

  it("tells the parse's own errors as they are", async () => {
    const error = await refused(parser.parse({ url, body: "<rss><channel>" }, 50));
    assert.equal(error.code, "malformed-xml");
  });

  it("ends a read that needs more memory than its thread may use", async () => {
    const small = new FeedParser({ memoryLimitMb: 16, timeLimitMs: 60_000 });
    try {
      const page = `<!doctype html><html><body><main class="h-feed">${Array.from(
        { length: 2000 },
        (_, n) =>
          `<article class="h-entry"><a class="u-url" href="/${n}/">${n}</a><div class="e-content"><p>${"Words, words. ".repeat(40)}</p></div></article>`,
      ).join("\n")}</main></body></html>`;
      const error = await refused(small.parse({ url, body: page }, 50));
      assert.equal(error.code, "too-large");
      assert.match(error.message, /^Reading the feed needed more than 16 MB of memory, so it was stopped/);
    } finally {
      await small.close();
    }
  });

  it("a shutdown ends a read under way", async () => {
    const read = parser.parse({ url, body: nested(50_000) }, 50);
    // The read is under way once the thread has it; closing ends it, whatever it had done.
    await new Promise((resolve) => setImmediate(resolve));
    await parser.close();
    const error = await refused(read);
    assert.equal(error.code, "unreadable");
    const { total } = await parser.parse({ url, body: jsonFeed(1) }, 50);
    assert.equal(total, 1, "and a parser closed reads again on a fresh thread");
  });
});
