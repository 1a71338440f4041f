// The endpoint's `feeds` option: each mistake is one line naming the option and what to write; a
// target that no installed syndicator has is refused at start, one line each.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { unknownFeedTargets } from "../sources/feeds/feed-options.ts";
import { parseEndpointOptions } from "./options.ts";

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
      { ...blog, backfill: 0, pollSeconds: 300, maxEntries: 300 },
    ]);
    const micropub = parseEndpointOptions(
      { feeds: [{ ...blog, micropub: { endpoint: "https://blog.example/micropub" } }] },
      { MICROPUB_TOKEN: "t" },
    ).feeds[0]?.micropub;
    assert.deepEqual(micropub, { endpoint: "https://blog.example/micropub", tokenEnv: "MICROPUB_TOKEN" });
  });

  it("one line per mistake, naming the option and what to write", () => {
    assert.deepEqual(
      problems([
        { ...blog, url: "feed.xml" },
        { ...blog, url: "ftp://blog.example/feed", targets: [] },
        { ...blog, url: "https://blog.example/b", backfill: -1, pollSeconds: 5, categories: [] },
        { ...blog, url: "https://blog.example/c", maxEntries: 20_000 },
      ]),
      [
        'endpoint-syndicate: option "feeds.0.url" must be the absolute http(s) URL of the feed, such as "https://blog.example/feed.xml"',
        'endpoint-syndicate: option "feeds.1.url" must be the absolute http(s) URL of the feed, such as "https://blog.example/feed.xml"',
        'endpoint-syndicate: option "feeds.1.targets" must list the uids of the targets to send new entries to, such as ["https://mastodon.social/@me"] (the Syndicate page lists them)',
        'endpoint-syndicate: option "feeds.2.categories" must be a list of category names, such as ["posse"]; only entries with one of them are sent. Remove it to send every entry',
        'endpoint-syndicate: option "feeds.2.backfill" must be a whole number from 0 to 50, such as 0 (the default: the first read sends nothing)',
        'endpoint-syndicate: option "feeds.2.pollSeconds" must be a whole number from 60 to 86400, such as 300 (the default)',
        'endpoint-syndicate: option "feeds.3.maxEntries" must be a whole number from 50 to 5000, such as 300 (the default)',
      ],
    );
    assert.deepEqual(problems([{ ...blog, target: "x" }]), [
      'endpoint-syndicate: option "feeds.0" has unknown option target; a feed takes url, targets, categories, backfill, pollSeconds, maxEntries and micropub',
    ]);
    assert.deepEqual(problems({ blog }), [
      'endpoint-syndicate: option "feeds" must be a list, such as [{ url: "https://blog.example/feed.xml", targets: ["https://mastodon.social/@me"] }]',
    ]);
  });

  it("a feed listed twice, and a token variable not set, are refused", () => {
    assert.deepEqual(
      problems([
        blog,
        { ...blog, micropub: { endpoint: "https://blog.example/micropub", tokenEnv: "BLOG" } },
      ]),
      [
        'endpoint-syndicate: option "feeds.1.url" lists https://blog.example/feed.xml a second time; list each feed once',
        'endpoint-syndicate: option "feeds.1.micropub.tokenEnv" names BLOG, which is not set: set it to a token https://blog.example/micropub issued with the scope update',
      ],
    );
    // Blank is not set either.
    assert.equal(
      problems([{ ...blog, micropub: { endpoint: "https://blog.example/micropub" } }], {
        MICROPUB_TOKEN: " ",
      }).length,
      1,
    );
  });

  it("the site's Micropub endpoint: one line per mistake, naming the option and what to write", () => {
    const env = { BLOG_TOKEN: "t" };
    const with_ = (micropub: unknown) => [{ ...blog, micropub }];
    assert.deepEqual(problems(with_("https://blog.example/micropub"), env), [
      'endpoint-syndicate: option "feeds.0.micropub" must be an object, such as { endpoint: "https://blog.example/micropub", tokenEnv: "BLOG_MICROPUB_TOKEN" }',
    ]);
    assert.deepEqual(problems(with_({ endpoint: "blog.example/micropub", tokenEnv: "BLOG_TOKEN" }), env), [
      'endpoint-syndicate: option "feeds.0.micropub.endpoint" must be an absolute https URL',
    ]);
    assert.deepEqual(
      problems(with_({ endpoint: "https://blog.example/micropub", tokenEnv: "my token" }), env),
      [
        'endpoint-syndicate: option "feeds.0.micropub.tokenEnv" must name an environment variable, such as "MICROPUB_TOKEN"',
      ],
    );
    assert.deepEqual(
      problems(
        with_({ endpoint: "https://blog.example/micropub", token: "secret", tokenEnv: "BLOG_TOKEN" }),
        env,
      ),
      [
        'endpoint-syndicate: option "feeds.0.micropub" has unknown option token; it takes endpoint and tokenEnv',
      ],
    );
    assert.deepEqual(
      problems(with_({ endpoint: "https://blog.example/micropub", tokenEnv: "BLOG_TOKEN" }), env),
      [],
    );
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
      'endpoint-syndicate: option "feeds.1.targets.1" names "bsky", which is no installed target; write one of "https://mastodon.example/@me", or connect that account on the Accounts page',
    ]);
    assert.deepEqual(unknownFeedTargets(feeds, ["https://mastodon.example/@me", "bsky"]), []);
  });
});
