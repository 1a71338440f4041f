// The endpoint's `feeds` option: each mistake is one line naming the option and what to write; a
// target that no installed syndicator has is refused at start, one line each.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseEndpointOptions } from "../../../src/plugin/options.ts";
import { unknownFeedTargets } from "../../../src/sources/feeds/feed-options.ts";

const blog = { url: "https://blog.example/feed.xml", targets: ["https://mastodon.example/@me"] };

function problems(feeds: unknown, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    parseEndpointOptions({ feeds }, env);
  } catch (error) {
    return (error as Error).message.split("\n");
  }
  return [];
}

describe("the feeds option", () => {
  it("none by default; a feed takes the documented defaults", () => {
    assert.deepEqual(parseEndpointOptions({}, {}).feeds, []);
    assert.deepEqual(parseEndpointOptions({ feeds: [blog] }, {}).feeds, [
      { ...blog, backfill: 0, pollSeconds: 300 },
    ]);
  });

  it("one line per mistake, naming the option and what to write", () => {
    assert.deepEqual(
      problems([
        { ...blog, url: "feed.xml" },
        { ...blog, url: "ftp://blog.example/feed", targets: [] },
        { ...blog, url: "https://blog.example/b", backfill: -1, pollSeconds: 5, categories: [] },
      ]),
      [
        'endpoint-syndicate: option "feeds.0.url" must be the absolute http(s) URL of the feed, such as "https://blog.example/feed.xml"',
        'endpoint-syndicate: option "feeds.1.url" must be the absolute http(s) URL of the feed, such as "https://blog.example/feed.xml"',
        'endpoint-syndicate: option "feeds.1.targets" must list the uids of the targets to send new entries to, such as ["https://mastodon.social/@me"] (the Syndicate page lists them)',
        'endpoint-syndicate: option "feeds.2.categories" must be a list of category names, such as ["posse"]; only entries with one of them are sent. Remove it to send every entry',
        'endpoint-syndicate: option "feeds.2.backfill" must be a whole number from 0 to 50, such as 0 (the default: the first read sends nothing)',
        'endpoint-syndicate: option "feeds.2.pollSeconds" must be a whole number from 60 to 86400, such as 300 (the default)',
      ],
    );
    assert.deepEqual(problems([{ ...blog, target: "x" }]), [
      'endpoint-syndicate: option "feeds.0" has unknown option target; a feed takes url, targets, categories, backfill and pollSeconds',
    ]);
    assert.deepEqual(problems({ blog }), [
      'endpoint-syndicate: option "feeds" must be a list, such as [{ url: "https://blog.example/feed.xml", targets: ["https://mastodon.social/@me"] }]',
    ]);
  });

  it("a feed listed twice is refused", () => {
    assert.deepEqual(problems([blog, { ...blog }]), [
      'endpoint-syndicate: option "feeds.1.url" lists https://blog.example/feed.xml a second time; list each feed once',
    ]);
  });

  it("a target no syndicator has is one line at start, naming those there are", () => {
    const feeds = parseEndpointOptions(
      {
        feeds: [
          blog,
          { url: "https://other.example/feed", targets: ["https://mastodon.example/@me", "bsky"] },
        ],
      },
      {},
    ).feeds;
    assert.deepEqual(unknownFeedTargets(feeds, ["https://mastodon.example/@me"]), [
      'endpoint-syndicate: option "feeds.1.targets.1" names "bsky", which is no installed target; write one of "https://mastodon.example/@me"',
    ]);
    assert.deepEqual(unknownFeedTargets(feeds, ["https://mastodon.example/@me", "bsky"]), []);
  });
});
