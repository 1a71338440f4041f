// The site's choice for a copy's text (a feed entry's <posse:post>), as each target makes it: the
// site's text instead of the template's, cut to the limit unless truncate is false (then shown over
// it, never cut), the link after it as append_url says, and the user's own words over all of it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Publication } from "../../contract/syndicator.ts";
import { BlueskySyndicator } from "../bluesky/bluesky-syndicator.ts";
import { MastodonSyndicator } from "../mastodon/mastodon-syndicator.ts";
import { MicropubSyndicator } from "../micropub/micropub-syndicator.ts";

const publication: Publication = {
  me: "https://blog.example/",
  postUrlPattern: "{me}{slug}/",
  timezone: "UTC",
  name: "A blog",
};
const URL = "https://blog.example/hello/";
const post = {
  type: "entry",
  name: "Hello",
  content: { text: "The post's own text.", html: "<p>The post's own text.</p>" },
  url: URL,
  category: ["news"],
};
const mastodon = new MastodonSyndicator(
  { url: "https://mastodon.example", user: "me", accessToken: "token", characterLimit: 60 },
  {},
);
const bluesky = new BlueskySyndicator(
  { handle: "me.example", password: "app-password", serviceUrl: "https://pds.example" },
  {},
);
const micropub = new MicropubSyndicator(
  { micropubEndpoint: "https://other.example/micropub", accessToken: "token", name: "Other" },
  {},
);
const long = "word ".repeat(80).trim();

describe("the site's text on Mastodon", () => {
  it("replaces the template's, with no hashtags added, the link after it when append_url says so", () => {
    const preview = mastodon.preview(post, publication, { site: { text: "New: Hello", appendUrl: true } });
    assert.equal(preview.text, `New: Hello\n\n${URL}`);
    assert.equal(preview.permalink, "text");
    assert.equal(preview.ownText, false);
    const bare = mastodon.preview(post, publication, { site: { text: "New: Hello", appendUrl: false } });
    assert.equal(bare.text, "New: Hello");
  });

  it("is cut to the limit, keeping the link whole, unless truncate is false", () => {
    const cut = mastodon.preview(post, publication, { site: { text: long, appendUrl: true } });
    assert.equal(cut.cut, true);
    assert.equal(cut.over, false);
    assert.ok(cut.text?.endsWith(`…\n\n${URL}`), cut.text);
    const whole = mastodon.preview(post, publication, {
      site: { text: long, appendUrl: true, truncate: false },
    });
    assert.equal(whole.text, `${long}\n\n${URL}`, "never cut");
    assert.equal(whole.cut, false);
    assert.equal(whole.over, true, "shown over the limit: the service refuses it");
  });

  it("leaves the template's text when the site chose only truncate or append_url", () => {
    const preview = mastodon.preview(post, publication, { site: { appendUrl: false } });
    assert.equal(preview.text, "Hello\n\n#news");
  });

  it("gives way to the user's own words", () => {
    const preview = mastodon.preview(post, publication, {
      text: "My words",
      site: { text: "New: Hello", appendUrl: true },
    });
    assert.equal(preview.text, "My words");
    assert.equal(preview.ownText, true);
  });
});

describe("the site's text on Bluesky", () => {
  it("is cut to 300 graphemes unless truncate is false", () => {
    const cut = bluesky.preview(post, publication, { site: { text: long.repeat(2), appendUrl: true } });
    assert.equal(cut.over, false);
    assert.ok(cut.text?.endsWith(`…\n\n${URL}`), cut.text);
    const whole = bluesky.preview(post, publication, { site: { text: long.repeat(2), truncate: false } });
    assert.equal(whole.text, long.repeat(2));
    assert.equal(whole.over, true);
  });
});

describe("the site's text on a Micropub site", () => {
  it("is the copy's content, with the link when append_url says so", () => {
    const preview = micropub.preview(post, publication, { site: { text: "New: Hello", appendUrl: true } });
    assert.equal(preview.text, `New: Hello\n\n${URL}`);
    const plain = micropub.preview(post, publication, { site: { text: "New: Hello" } });
    assert.equal(plain.text, "New: Hello");
  });
});
