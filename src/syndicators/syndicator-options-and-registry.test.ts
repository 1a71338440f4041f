import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Server, SyndicatorPlugin } from "../contract/plugin.ts";
import {
  BlueskySyndicator,
  builtInSyndicators,
  InternetArchiveSyndicator,
  MastodonSyndicator,
  MicropubSyndicator,
} from "./index.ts";

const noEnv = {};

describe("Syndicator options are checked at construction, naming the option", () => {
  it("Mastodon: a URL that is not https", () => {
    assert.throws(
      () =>
        new MastodonSyndicator({ url: "http://mastodon.example", user: "alice", accessToken: "t" }, noEnv),
      { message: 'syndicator-mastodon: option "url" must be an absolute https URL' },
    );
  });

  it("Mastodon: a missing token says which variable to set; the variable is used when set", () => {
    assert.throws(() => new MastodonSyndicator({ url: "https://mastodon.example", user: "alice" }, noEnv), {
      message: 'syndicator-mastodon: option "accessToken" is required (or set MASTODON_ACCESS_TOKEN)',
    });
    const fromEnv = new MastodonSyndicator(
      { url: "https://mastodon.example/", user: "@alice" },
      { MASTODON_ACCESS_TOKEN: "from-env" },
    );
    assert.equal(fromEnv.info.uid, "https://mastodon.example/@alice");
    assert.equal(fromEnv.info.name, "@alice@mastodon.example");
    assert.ok(
      !JSON.stringify(fromEnv.options).includes("from-env"),
      "the token is not among the visible options",
    );
  });

  it("Mastodon: every problem at once, and unknown options", () => {
    assert.throws(
      () =>
        new MastodonSyndicator(
          {
            url: "https://m.example",
            user: "alice",
            accessToken: "t",
            characterLimit: 0,
            includePermalnk: true,
          },
          noEnv,
        ),
      {
        message:
          'syndicator-mastodon: option "characterLimit" must be greater than 0\nsyndicator-mastodon: unknown option "includePermalnk"',
      },
    );
  });

  it("Bluesky: handle and app password", () => {
    assert.throws(() => new BlueskySyndicator({ handle: "not a handle", password: "p" }, noEnv), {
      message: 'syndicator-bluesky: option "handle" must be a Bluesky handle such as alice.bsky.social',
    });
    assert.throws(() => new BlueskySyndicator({ handle: "alice.bsky.social" }, noEnv), {
      message: 'syndicator-bluesky: option "password" is required (or set BLUESKY_PASSWORD)',
    });
    const bluesky = new BlueskySyndicator(
      { handle: "@Alice.bsky.social" },
      { BLUESKY_PASSWORD: "app-password" },
    );
    assert.equal(bluesky.info.uid, "https://bsky.app/profile/alice.bsky.social");
    assert.equal(bluesky.options.serviceUrl, "https://bsky.social");
  });

  it("Internet Archive: both keys or neither", () => {
    assert.throws(() => new InternetArchiveSyndicator({ accessKey: "a" }, noEnv), {
      message:
        'syndicator-internet-archive: option "secretKey" is required when the other key is given (or set INTERNET_ARCHIVE_SECRET_KEY)',
    });
    const anonymous = new InternetArchiveSyndicator({}, noEnv);
    assert.equal(anonymous.info.uid, "https://web.archive.org/");
    const signedIn = new InternetArchiveSyndicator(
      {},
      { INTERNET_ARCHIVE_ACCESS_KEY: "a", INTERNET_ARCHIVE_SECRET_KEY: "s" },
    );
    assert.equal(signedIn.options.signedIn, true);
  });

  it("Micropub: endpoint and token; uid defaults to the endpoint", () => {
    assert.throws(() => new MicropubSyndicator({ micropubEndpoint: "/micropub", accessToken: "t" }, noEnv), {
      message: 'syndicator-micropub: option "micropubEndpoint" must be an absolute https URL',
    });
    const micropub = new MicropubSyndicator(
      { micropubEndpoint: "https://micro.blog/micropub", name: "micro.blog" },
      { MICROPUB_ACCESS_TOKEN: "t" },
    );
    assert.equal(micropub.info.uid, "https://micro.blog/micropub");
    assert.equal(micropub.info.name, "micro.blog");
    const named = new MicropubSyndicator(
      { micropubEndpoint: "https://x.example/mp", accessToken: "t", uid: "https://x.example/" },
      noEnv,
    );
    assert.equal(named.info.uid, "https://x.example/");
  });
});

describe("The built-in syndicators, by package name", () => {
  const options: Record<string, Record<string, unknown>> = {
    "@possekit/syndicator-mastodon": { url: "https://mastodon.example", user: "alice", accessToken: "t" },
    "@possekit/syndicator-bluesky": { handle: "alice.bsky.social", password: "p" },
    "@possekit/syndicator-internet-archive": {},
    "@possekit/syndicator-micropub": { micropubEndpoint: "https://micro.blog/micropub", accessToken: "t" },
    "@possekit/syndicator-linkedin": { author: "urn:li:person:AbC123", accessToken: "t" },
    "@possekit/syndicator-threads": { userId: "17841400000000001", username: "alice", accessToken: "t" },
    "@possekit/syndicator-nostr": { secretKey: "7f".repeat(32) },
  };

  it("lists the five packages, each constructed with its options", () => {
    assert.deepEqual(Object.keys(builtInSyndicators).sort(), Object.keys(options).sort());
  });

  it("registers each with the server in init(), with unique uids", async () => {
    const registered: SyndicatorPlugin[] = [];
    const server = {
      addSyndicator: (plugin: SyndicatorPlugin) => registered.push(plugin),
      config: { fetch: { allowPrivate: false } },
    } as unknown as Server;
    for (const [name, Syndicator] of Object.entries(builtInSyndicators)) {
      const plugin = new Syndicator(options[name] ?? {});
      await plugin.init(server);
      assert.match(plugin.id, /^[a-z]+(-[a-z]+)*$/, "the id is kebab-case");
      assert.equal(typeof plugin.syndicate, "function");
      assert.ok(plugin.info.service?.name);
    }
    assert.equal(registered.length, Object.keys(options).length);
    assert.equal(new Set(registered.map((plugin) => plugin.info.uid)).size, Object.keys(options).length);
  });
});
