// At start the server asks every target, in the background, whether it would take a post, and logs
// one line per target that would not (naming the setting to fix), none for the others, and never a
// secret. A target that does not answer delays neither the start nor the other targets' checks.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { type FakePds, startFakePds } from "../fakes/bluesky-pds.ts";
import { type FakeMicropub, startFakeMicropub } from "../fakes/micropub-endpoint.ts";
import { until } from "../helpers/eventually.ts";
import { configFolder } from "../server/start-host.ts";
import { type Serving, serve } from "./run-cli.ts";

const MASTODON_TOKEN = "a-mastodon-token-the-instance-revoked";
const MICROPUB_TOKEN = "the-micropub-token";

describe("possekit serve checks its targets at start", () => {
  let mastodon: MastodonSandbox;
  let pds: FakePds;
  let micropub: FakeMicropub;
  let silent: Server;
  let server: Serving;
  let folder: ReturnType<typeof configFolder>;

  before(async () => {
    mastodon = await startMastodonSandbox({ accessToken: "the-token-it-takes", user: "alice" });
    pds = await startFakePds({ handle: "alice.example.com", password: "app-password" });
    micropub = await startFakeMicropub({ token: MICROPUB_TOKEN });
    // An archive that never answers: its check gives up after targetTimeoutMs, long after the start.
    silent = createServer(() => {});
    await new Promise<void>((listening) => silent.listen(0, "127.0.0.1", listening));
    const address = silent.address();
    const silentUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    folder = configFolder(() => ({
      application: { port: 0 },
      plugins: [
        "@possekit/endpoint-syndicate",
        "@possekit/syndicator-mastodon",
        "@possekit/syndicator-bluesky",
        "@possekit/syndicator-micropub",
        "@possekit/syndicator-internet-archive",
      ],
      // 5 s, not 2: since a first start copies the shipped empty database (decision 0030) the checks begin
      // seconds earlier, while the server still loads each syndicator's libraries; on a loaded machine
      // the answering targets' checks took 3-5 s and were logged as not answering.
      "@possekit/endpoint-syndicate": { schedule: { enabled: false }, targetTimeoutMs: 5000 },
      "@possekit/syndicator-mastodon": { url: mastodon.url, user: "alice" },
      "@possekit/syndicator-bluesky": { handle: "alice.example.com", serviceUrl: pds.url },
      "@possekit/syndicator-micropub": { micropubEndpoint: micropub.url },
      "@possekit/syndicator-internet-archive": { serviceUrl: silentUrl },
    }));
    server = await serve([], {
      cwd: folder.dir,
      env: {
        ...folder.env,
        MASTODON_ACCESS_TOKEN: MASTODON_TOKEN,
        BLUESKY_PASSWORD: "app-password",
        MICROPUB_ACCESS_TOKEN: MICROPUB_TOKEN,
        INTERNET_ARCHIVE_ACCESS_KEY: "archive-access",
        INTERNET_ARCHIVE_SECRET_KEY: "archive-secret",
      },
    });
  });
  after(async () => {
    await server?.stop();
    silent.closeAllConnections();
    await Promise.all([
      mastodon.close(),
      pds.close(),
      micropub.close(),
      new Promise((closed) => silent.close(closed)),
    ]);
    folder.remove();
  });

  it("logs one line per broken target (refused, not answering), naming the setting, none for the good ones", async () => {
    await until(
      "both broken targets are logged",
      () => (server.stderr().match(/is not usable/g) ?? []).length >= 2,
    );
    const log = server.stderr();
    const lines = log.split("\n").filter((line) => /is not usable/.test(line));
    assert.equal(lines.length, 2, log);
    assert.ok(
      lines.some((line) =>
        /WARN Syndication target @alice@127\.0\.0\.1:\d+ is not usable: Mastodon: 401 The access token is invalid; check MASTODON_ACCESS_TOKEN/.test(
          line,
        ),
      ),
      log,
    );
    const archiveLine = lines.find((line) =>
      /Internet Archive is not usable: Internet Archive did not answer the check within 5 s/.test(line),
    );
    assert.ok(archiveLine, log);
    assert.ok(
      log.indexOf("possekit is running at") < log.indexOf(archiveLine),
      "the server listened before the silent target's check gave up",
    );
    assert.ok(pds.calls.some((call) => call.nsid === "com.atproto.server.getSession" && call.status === 200));
    for (const secret of [MASTODON_TOKEN, MICROPUB_TOKEN, "app-password", "archive-secret"])
      assert.ok(!log.includes(secret), `the log holds no secret (${secret})`);
    assert.ok(!/^\s+at /m.test(log), log);
  });
});
