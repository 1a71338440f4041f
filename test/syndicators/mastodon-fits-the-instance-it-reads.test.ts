// Mastodon instances set their own limits; a status is fitted to what /api/v2/instance announces
// (falling back to v1), not to a fixed 500, and alt text to the instance's description limit.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { mastodonLength } from "../../src/syndicators/mastodon/mastodon-length.ts";
import { startPhotoServer } from "../fakes/photo-server.ts";
import { callOptions, note, publication, siteServedBy } from "./fixtures.ts";

const words = (count: number) => Array.from({ length: count }, (_, index) => `w${index}`).join(" ");
/** 700 characters as Mastodon counts them. */
const sevenHundred = `${words(150)} ${"x".repeat(700 - words(150).length - 1)}`;

describe("Mastodon: the status fits the instance's own limits", () => {
  const sandboxes: MastodonSandbox[] = [];
  const sandbox = async (options: Parameters<typeof startMastodonSandbox>[0]) => {
    const started = await startMastodonSandbox(options);
    sandboxes.push(started);
    return started;
  };
  const syndicator = (instance: MastodonSandbox, options: Record<string, unknown> = {}) =>
    new MastodonSyndicator({ url: instance.url, user: "demo", accessToken: "token", ...options });
  after(() => Promise.all(sandboxes.map((started) => started.close())));

  it("on an instance allowing 1,000 characters, a 700-character post is sent whole", async () => {
    assert.equal(mastodonLength(sevenHundred), 700);
    const instance = await sandbox({ accessToken: "token", characterLimit: 1000 });
    await syndicator(instance).syndicate(note({ content: sevenHundred }), publication, callOptions());
    assert.equal(instance.statuses.at(-1)?.text, sevenHundred);
  });

  it("on an instance allowing 300, the post is cut to 300 instead of refused", async () => {
    const instance = await sandbox({ accessToken: "token", characterLimit: 300 });
    await syndicator(instance).syndicate(note({ content: sevenHundred }), publication, callOptions());
    const text = instance.statuses.at(-1)?.text ?? "";
    assert.ok(mastodonLength(text) <= 300 && mastodonLength(text) > 270, `${mastodonLength(text)}`);
    assert.ok(text.endsWith(`…\n\n${note().url}`));
  });

  it("an older instance without /api/v2/instance is read through v1", async () => {
    const instance = await sandbox({ accessToken: "token", characterLimit: 300, instanceApi: "v1" });
    await syndicator(instance).syndicate(note({ content: sevenHundred }), publication, callOptions());
    assert.ok(mastodonLength(instance.statuses.at(-1)?.text ?? "") <= 300);
    assert.deepEqual(
      instance.requests.filter((request) => request.path.endsWith("/instance")).map((r) => r.path),
      ["/api/v2/instance", "/api/v1/instance"],
    );
  });

  it("characterLimit overrides what the instance says", async () => {
    const instance = await sandbox({ accessToken: "token", characterLimit: 1000 });
    await syndicator(instance, { characterLimit: 400 }).syndicate(
      note({ content: sevenHundred }),
      publication,
      callOptions(),
    );
    assert.ok(mastodonLength(instance.statuses.at(-1)?.text ?? "") <= 400);
  });

  it("reads the instance once, not before every status", async () => {
    const instance = await sandbox({ accessToken: "token" });
    const once = syndicator(instance);
    for (let index = 0; index < 3; index++) {
      await once.syndicate(note({ content: `Post ${index}` }), publication, callOptions());
    }
    assert.equal(instance.statuses.length, 3);
    assert.equal(instance.requests.filter((request) => request.path === "/api/v2/instance").length, 1);
  });

  it("alt text over the instance's limit is cut at a word instead of refusing the photo", async () => {
    const instance = await sandbox({ accessToken: "token", altTextLimit: 100 });
    const photos = await startPhotoServer();
    try {
      const alt = words(60);
      await syndicator(instance).syndicate(
        note({ content: "A photo", photo: [{ url: `${photos.url}/photo.jpg`, alt }] }),
        siteServedBy(photos.url),
        callOptions(),
      );
      const description = instance.media.at(-1)?.description ?? "";
      assert.ok([...description].length <= 100, `${[...description].length}`);
      assert.ok(description.endsWith("…"));
      assert.ok(alt.startsWith(description.slice(0, -1)));
      assert.equal(instance.statuses.at(-1)?.media.length, 1);
    } finally {
      await photos.close();
    }
  });
});

describe("Mastodon: visibility and language", () => {
  let instance: MastodonSandbox;
  after(() => instance.close());

  it("statuses are public and without a language unless told", async () => {
    instance = await startMastodonSandbox({ accessToken: "token" });
    const plain = new MastodonSyndicator({ url: instance.url, user: "demo", accessToken: "token" });
    await plain.syndicate(note(), publication, callOptions());
    assert.equal(instance.statuses.at(-1)?.visibility, "public");
    assert.equal(instance.statuses.at(-1)?.language, null);
  });

  it("the visibility and language options are sent; the post's own lang wins over none", async () => {
    const told = new MastodonSyndicator({
      url: instance.url,
      user: "demo",
      accessToken: "token",
      visibility: "unlisted",
      language: "EN",
    });
    await told.syndicate(note(), publication, callOptions());
    assert.equal(instance.statuses.at(-1)?.visibility, "unlisted");
    assert.equal(instance.statuses.at(-1)?.language, "en");

    const plain = new MastodonSyndicator({ url: instance.url, user: "demo", accessToken: "token" });
    await plain.syndicate(note({ lang: "de-CH" }), publication, callOptions());
    assert.equal(instance.statuses.at(-1)?.language, "de");
  });

  it("a visibility Mastodon has not, or a direct message, is a configuration error naming the option", () => {
    assert.throws(
      () =>
        new MastodonSyndicator({
          url: "https://m.example",
          user: "a",
          accessToken: "t",
          visibility: "direct",
        }),
      /syndicator-mastodon: option "visibility" must be "public", "unlisted" or "private"/,
    );
    assert.throws(
      () =>
        new MastodonSyndicator({
          url: "https://m.example",
          user: "a",
          accessToken: "t",
          language: "english",
        }),
      /syndicator-mastodon: option "language" must be a two- or three-letter ISO 639 language code/,
    );
  });
});
