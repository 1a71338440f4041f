// Each syndicator's verify() asks its service whether the credentials are accepted, the way the
// service documents it, and never sends a post: Mastodon's verify_credentials, a Bluesky session
// (getSession after signing in), the archive's keys (/save/status/user), Micropub's q=config.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import type { SyndicatorPlugin } from "../../src/contract/plugin.ts";
import { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import { InternetArchiveSyndicator } from "../../src/syndicators/internet-archive/index.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { MicropubSyndicator } from "../../src/syndicators/micropub/index.ts";
import { type FakePds, startFakePds } from "../fakes/bluesky-pds.ts";
import { type FakeArchive, startFakeArchive } from "../fakes/internet-archive.ts";
import { type FakeMicropub, startFakeMicropub } from "../fakes/micropub-endpoint.ts";
import { HANG_MS } from "./fixtures.ts";

const signal = () => AbortSignal.timeout(HANG_MS);

async function refusedWith(syndicator: SyndicatorPlugin, status: number, message: RegExp) {
  assert.ok(syndicator.verify);
  await assert.rejects(syndicator.verify({ signal: signal() }), (error: Error & { status?: number }) => {
    assert.equal(error.status, status, error.message);
    assert.match(error.message, message);
    return true;
  });
}

describe("verify(): credentials checked, nothing posted", () => {
  let pds: FakePds;
  let archive: FakeArchive;
  let micropub: FakeMicropub;
  before(async () => {
    pds = await startFakePds({ handle: "alice.example.com", password: "app-password" });
    archive = await startFakeArchive({ accessKey: "access", secretKey: "secret" });
    micropub = await startFakeMicropub({ token: "good" });
  });
  after(() => Promise.all([pds.close(), archive.close(), micropub.close()]));

  it("Mastodon: verify_credentials with the token; a wrong token is a 401; another account is named", async () => {
    const sandbox = await startMastodonSandbox({ accessToken: "good", user: "alice" });
    try {
      const good = new MastodonSyndicator({ url: sandbox.url, user: "alice", accessToken: "good" });
      await good.verify({ signal: signal() });
      assert.deepEqual(
        sandbox.requests.map((request) => `${request.method} ${request.path} ${request.authorized}`),
        ["GET /api/v1/accounts/verify_credentials true"],
      );
      await refusedWith(
        new MastodonSyndicator({ url: sandbox.url, user: "alice", accessToken: "bad" }),
        401,
        /^Mastodon: 401 The access token is invalid$/,
      );
      const other = new MastodonSyndicator({ url: sandbox.url, user: "bob", accessToken: "good" });
      await assert.rejects(other.verify({ signal: signal() }), /belongs to @alice, not @bob/);
      assert.equal(sandbox.statuses.length, 0);
    } finally {
      await sandbox.close();
    }
  });

  it("Bluesky: signs in and asks getSession; a wrong app password is a 401", async () => {
    const good = new BlueskySyndicator({
      handle: "alice.example.com",
      password: "app-password",
      serviceUrl: pds.url,
    });
    await good.verify({ signal: signal() });
    assert.deepEqual(
      pds.calls.map((call) => call.nsid),
      ["com.atproto.server.createSession", "com.atproto.server.getSession"],
    );
    await refusedWith(
      new BlueskySyndicator({ handle: "alice.example.com", password: "wrong", serviceUrl: pds.url }),
      401,
      /AuthenticationRequired: Invalid identifier or password/,
    );
    assert.equal(pds.records.length, 0);
  });

  it("Internet Archive: the keys' account status; wrong keys are a 401; no keys, nothing to check", async () => {
    const good = new InternetArchiveSyndicator(
      { accessKey: "access", secretKey: "secret", serviceUrl: archive.url },
      {},
    );
    await good.verify({ signal: signal() });
    await refusedWith(
      new InternetArchiveSyndicator({ accessKey: "access", secretKey: "wrong", serviceUrl: archive.url }, {}),
      401,
      /You need to be logged in/,
    );
    await new InternetArchiveSyndicator({ serviceUrl: archive.url }, {}).verify({ signal: signal() });
    assert.equal(archive.captures.length, 0);
  });

  it("Micropub: q=config with the token; a token the site does not know is a 403", async () => {
    await new MicropubSyndicator({ micropubEndpoint: micropub.url, accessToken: "good" }, {}).verify({
      signal: signal(),
    });
    await refusedWith(
      new MicropubSyndicator({ micropubEndpoint: micropub.url, accessToken: "bad" }, {}),
      403,
      /The access token is not valid for this site/,
    );
    assert.equal(micropub.requests.length, 0, "no create request");
  });

  it("names where the credentials are set: the environment variable, or the config option", () => {
    const fromEnv = new MastodonSyndicator(
      { url: "https://m.example", user: "a" },
      { MASTODON_ACCESS_TOKEN: "t" },
    );
    assert.equal(fromEnv.credentialSetting, "MASTODON_ACCESS_TOKEN");
    const fromFile = new MastodonSyndicator({ url: "https://m.example", user: "a", accessToken: "t" }, {});
    assert.equal(fromFile.credentialSetting, '"@possekit/syndicator-mastodon".accessToken');
    const bluesky = new BlueskySyndicator({ handle: "a.example" }, { BLUESKY_PASSWORD: "p" });
    assert.equal(bluesky.credentialSetting, "BLUESKY_PASSWORD");
    const micropubTarget = new MicropubSyndicator(
      { micropubEndpoint: "https://x.example/mp" },
      { MICROPUB_ACCESS_TOKEN: "t" },
    );
    assert.equal(micropubTarget.credentialSetting, "MICROPUB_ACCESS_TOKEN");
  });
});
