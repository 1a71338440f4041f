import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { hashtagFor } from "../../src/syndicators/shared/hashtags.ts";
import { callOptions, note, publication } from "./fixtures.ts";

describe("Mastodon: categories as hashtags", () => {
  let sandbox: MastodonSandbox;
  before(async () => {
    sandbox = await startMastodonSandbox({ accessToken: "token" });
  });
  after(() => sandbox.close());

  it("adds sanitised hashtags after the text, each once, leaving out URLs and numbers", async () => {
    const syndicator = new MastodonSyndicator({ url: sandbox.url, user: "demo", accessToken: "token" });
    await syndicator.syndicate(
      note({
        category: ["indie web", "IndieWeb", "open-source", "café", "2024", "https://bob.example/", "c++"],
      }),
      publication,
      callOptions(),
    );
    const status = sandbox.statuses.at(-1);
    assert.equal(
      status?.text,
      "Hello from my site, see https://example.com/page for more\n\n#IndieWeb #OpenSource #café #c",
    );
  });

  it("leaves hashtags out with includeCategories: false", async () => {
    const syndicator = new MastodonSyndicator({
      url: sandbox.url,
      user: "demo",
      accessToken: "token",
      includeCategories: false,
    });
    await syndicator.syndicate(note({ category: ["photography"] }), publication, callOptions());
    assert.equal(sandbox.statuses.at(-1)?.text, "Hello from my site, see https://example.com/page for more");
  });

  it("sends the whole text without hashtags rather than a cut text with them", async () => {
    const limited = await startMastodonSandbox({ accessToken: "token", characterLimit: 500 });
    try {
      const syndicator = new MastodonSyndicator({ url: limited.url, user: "demo", accessToken: "token" });
      // 490 characters fit alone; with "\n\n#IndieWeb #Photography" they would not.
      const text = `${"word ".repeat(97)}last!`;
      assert.equal(text.length, 490);
      await syndicator.syndicate(
        note({
          url: "https://example.org/notes/long/",
          content: { text, html: "" },
          category: ["indieweb", "photography"],
        }),
        publication,
        callOptions(),
      );
      assert.equal(limited.statuses.at(-1)?.text, text, "whole, no hashtags, no permalink, no ellipsis");
    } finally {
      await limited.close();
    }
  });

  it("turns a category into one tag Mastodon links", () => {
    assert.equal(hashtagFor("web development"), "WebDevelopment");
    assert.equal(hashtagFor("#already"), "already");
    assert.equal(hashtagFor("日本語"), "日本語");
    assert.equal(hashtagFor("2024"), undefined);
    assert.equal(hashtagFor("---"), undefined);
  });
});
