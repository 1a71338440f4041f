import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { mastodonLength } from "../../src/syndicators/mastodon/mastodon-length.ts";
import { callOptions, note, publication } from "./fixtures.ts";

const permalink = "https://example.org/notes/a-rather-long-slug-for-a-post-about-many-things/";

describe("Mastodon: fitting the status to the character limit", () => {
  let sandbox: MastodonSandbox;
  let lastText: () => string;

  before(async () => {
    sandbox = await startMastodonSandbox({ accessToken: "token", characterLimit: 500 });
    lastText = () => sandbox.statuses.at(-1)?.text ?? "";
  });
  after(() => sandbox.close());

  const syndicator = (options: Record<string, unknown> = {}) =>
    new MastodonSyndicator({ url: sandbox.url, user: "demo", accessToken: "token", ...options });

  it("sends text that fits whole, without the permalink", async () => {
    await syndicator().syndicate(note({ url: permalink }), publication, callOptions());
    assert.equal(lastText(), "Hello from my site, see https://example.com/page for more");
  });

  it("cuts long text at a word, adds an ellipsis and the permalink, within 500 as Mastodon counts", async () => {
    const words = Array.from({ length: 200 }, (_, index) => `word${index}`).join(" ");
    await syndicator().syndicate(
      note({ url: permalink, content: { text: words } }),
      publication,
      callOptions(),
    );
    const text = lastText();
    assert.ok(text.endsWith(`…\n\n${permalink}`), text.slice(-120));
    const body = text.slice(0, text.indexOf("…"));
    assert.ok(words.startsWith(body), "the text is cut, not changed");
    assert.match(body, /word\d+$/, "the cut ends on a whole word");
    assert.ok(mastodonLength(text) <= 500);
    // The permalink counts 23 whatever its length, so the text uses almost all the room.
    assert.ok(mastodonLength(text) > 470, `only ${mastodonLength(text)} of 500 used`);
  });

  it("counts every link as 23 characters, so long links do not force a cut", async () => {
    const longLink = `https://example.com/${"x".repeat(300)}`;
    const text = `${"a".repeat(400)} ${longLink}`;
    await syndicator().syndicate(note({ content: { text } }), publication, callOptions());
    assert.equal(lastText(), text);
  });

  it("counts an emoji with a skin tone as one character", async () => {
    const text = "👍🏽".repeat(500);
    await syndicator().syndicate(note({ url: permalink, content: { text } }), publication, callOptions());
    assert.equal(lastText(), text, "500 graphemes fit a 500 limit");
  });

  it("never cuts a link in half", async () => {
    const text = `${"b".repeat(470)} https://example.com/some/where and more words after it`;
    await syndicator().syndicate(note({ url: permalink, content: { text } }), publication, callOptions());
    assert.ok(
      !lastText().includes("https://example.com/some/where"),
      "the link that did not fit was left out whole",
    );
    assert.ok(mastodonLength(lastText()) <= 500);
  });

  it("sends a title (name) with the permalink always", async () => {
    await syndicator().syndicate(note({ url: permalink, name: "My article" }), publication, callOptions());
    assert.equal(lastText(), `My article\n\n${permalink}`);
  });

  it("adds the permalink to every status with includePermalink", async () => {
    await syndicator({ includePermalink: true }).syndicate(
      note({ url: permalink }),
      publication,
      callOptions(),
    );
    assert.equal(lastText(), `Hello from my site, see https://example.com/page for more\n\n${permalink}`);
  });

  it("respects a smaller characterLimit", async () => {
    const words = Array.from({ length: 100 }, (_, index) => `w${index}`).join(" ");
    await syndicator({ characterLimit: 100 }).syndicate(
      note({ url: permalink, content: { text: words } }),
      publication,
      callOptions(),
    );
    assert.ok(mastodonLength(lastText()) <= 100);
    assert.ok(lastText().endsWith(`…\n\n${permalink}`));
  });
});
