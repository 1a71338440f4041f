// The site's text choices as POSSE Party means them: a format string expanded from the entry, and
// each target's choice made of the entry's, its platform's and its own uid's, in that order.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { targetsFor, textsFor } from "./entry-plan.ts";
import type { FeedEntry } from "./parse/index.ts";
import { choiceFor, expandFormat, platformTags, siteTextFor } from "./site-text.ts";

const MASTODON = "https://mastodon.example/@me";
const BLUESKY = "https://bsky.app/profile/me.example";
const tags = (uid: string) => (uid === MASTODON ? platformTags("Mastodon") : platformTags("Bluesky"));
const routing = { targets: [MASTODON, BLUESKY], backfill: 0, platforms: tags };

const entry = (extra: Partial<FeedEntry> = {}): FeedEntry => ({
  key: "id:1",
  id: "1",
  url: "https://blog.example/hello/",
  title: "Hello",
  contentText: "First post.",
  summary: "A greeting",
  author: { name: "Ada" },
  photos: [],
  enclosures: [],
  categories: [],
  problems: [],
  contentHash: "hash",
  properties: {},
  ...extra,
});

describe("a format string", () => {
  it("takes the entry's title, summary, content, url and author, and nothing for the rest", () => {
    assert.equal(
      expandFormat("{{title}} ({{summary}}) {{content}} by {{ author_name }} {{url}}", entry()),
      "Hello (A greeting) First post. by Ada https://blog.example/hello/",
    );
    assert.equal(expandFormat("{{title}}{{og_title}}{{subtitle}}!", entry()), "Hello!");
  });

  it("is tidied as POSSE Party tidies it: NFC, one space, none before a line break, trimmed", () => {
    assert.equal(
      expandFormat("  {{title}}   {{missing}}  \n\n{{url}}  ", entry()),
      "Hello\n\nhttps://blog.example/hello/",
    );
    assert.equal(expandFormat("Cafe\u0301 {{title}}", entry()), "Caf\u00e9 Hello");
    assert.equal(expandFormat("{{title}}  {{missing}}  now", entry()), "Hello now");
  });
});

describe("a target's choice", () => {
  const choices = {
    formatString: "{{title}}",
    truncate: true,
    appendUrl: true,
    perTarget: {
      mastodon: { formatString: "{{content}}", truncate: false },
      [MASTODON]: { appendUrl: false, truncate: true },
      bsky: { formatString: "{{summary}}" },
    },
    sources: ["posse:post" as const],
  };

  it("is the entry's, then its platform's, then its own uid's", () => {
    assert.deepEqual(choiceFor(choices, MASTODON, tags(MASTODON)), {
      formatString: "{{content}}",
      truncate: true,
      appendUrl: false,
    });
    assert.deepEqual(choiceFor(choices, BLUESKY, tags(BLUESKY)), {
      formatString: "{{summary}}",
      truncate: true,
      appendUrl: true,
    });
    assert.deepEqual(choiceFor(choices, "https://micro.example/", []), {
      formatString: "{{title}}",
      truncate: true,
      appendUrl: true,
    });
  });

  it("names Bluesky by bsky or bluesky, and any service by its own name", () => {
    assert.deepEqual(platformTags("Bluesky"), ["bsky", "bluesky"]);
    assert.deepEqual(platformTags("Mastodon"), ["mastodon"]);
    assert.deepEqual(platformTags(undefined), []);
  });

  it("becomes the text for each target, and nothing for a target without a choice", () => {
    assert.deepEqual(textsFor(entry({ choices }), routing), {
      [MASTODON]: { text: "First post.", truncate: true, appendUrl: false },
      [BLUESKY]: { text: "A greeting", truncate: true, appendUrl: true },
    });
    assert.deepEqual(textsFor(entry(), routing), {});
    const onlyTargets = entry({
      choices: { targets: [MASTODON], perTarget: {}, sources: ["mp-syndicate-to"] },
    });
    assert.deepEqual(textsFor(onlyTargets, routing), {});
  });

  it("leaves the text to the target's template when the format makes none", () => {
    const empty = {
      formatString: "{{og_title}}",
      truncate: false,
      perTarget: {},
      sources: ["_posse" as const],
    };
    assert.deepEqual(siteTextFor(entry({ choices: empty }), MASTODON, ["mastodon"]), { truncate: false });
  });

  it("sends to a platform the entry turns down when the platform's override says so", () => {
    const onlyBluesky = entry({
      choices: { syndicate: false, perTarget: { bsky: { syndicate: true } }, sources: ["posse:post"] },
    });
    assert.deepEqual(targetsFor(onlyBluesky, routing), [BLUESKY]);
    const notMastodon = entry({
      choices: { perTarget: { mastodon: { syndicate: false } }, sources: ["posse:post"] },
    });
    assert.deepEqual(targetsFor(notMastodon, routing), [BLUESKY]);
  });
});
