import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SyndicatorInfo } from "../../contract/syndicator.ts";
import { copyPlace } from "./copy-place.ts";

const mastodon: SyndicatorInfo = {
  uid: "https://mastodon.social/@me",
  name: "@me@mastodon.social",
  service: { name: "Mastodon", url: "https://mastodon.social/" },
  user: { name: "@me@mastodon.social", url: "https://mastodon.social/@me" },
};
const other: SyndicatorInfo = {
  uid: "https://mastodon.social/@meg",
  name: "@meg@mastodon.social",
  service: { name: "Mastodon", url: "https://mastodon.social/" },
  user: { name: "@meg@mastodon.social", url: "https://mastodon.social/@meg" },
};
const bluesky: SyndicatorInfo = {
  uid: "https://bsky.app/profile/alice.example",
  name: "@alice.example",
  service: { name: "Bluesky", url: "https://bsky.app/" },
  user: { name: "@alice.example", url: "https://bsky.app/profile/alice.example" },
};
const archive: SyndicatorInfo = {
  uid: "https://web.archive.org/",
  name: "Internet Archive",
  service: { name: "Internet Archive", url: "https://web.archive.org/" },
};

describe("the place a post's page names for a copy", () => {
  const targets = [mastodon, other, bluesky, archive];

  it("names the service and the account of the target the copy was sent to", () => {
    assert.equal(copyPlace("https://mastodon.social/@me/1234", targets), "Mastodon: @me@mastodon.social");
    assert.equal(copyPlace("https://mastodon.social/@meg/99", targets), "Mastodon: @meg@mastodon.social");
    assert.equal(
      copyPlace("https://bsky.app/profile/alice.example/post/3k", targets),
      "Bluesky: @alice.example",
    );
  });

  it("names a service alone where the target has no account", () => {
    assert.equal(
      copyPlace("https://web.archive.org/web/2026/https://me.example/a", targets),
      "Internet Archive",
    );
  });

  it("keeps the host name for a copy no target holds: another account, another origin", () => {
    assert.equal(copyPlace("https://mastodon.social/@someone/1", targets), "mastodon.social");
    assert.equal(copyPlace("http://mastodon.social/@me/1", targets), "mastodon.social");
    assert.equal(copyPlace("https://example.net/post/1", []), "example.net");
  });
});
