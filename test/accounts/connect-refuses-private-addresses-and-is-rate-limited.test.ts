// The instance, PDS and endpoint URLs a user types on the Accounts page are fetched under the
// private-address rules (src/net/safe-fetch.ts): without fetch.allowPrivate, a Mastodon instance, a
// Bluesky entryway or a Micropub endpoint on 127.0.0.1 is refused before any request reaches it,
// and nothing is stored. Connect attempts are limited per session: past the limit, 429.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { CONNECT_LIMIT } from "../../src/plugin/routes/accounts.ts";
import { closeAll, type EndpointServer, startEndpointServer } from "../endpoint/endpoint-server.ts";
import { type FakePds, startFakePds } from "../fakes/bluesky-pds.ts";
import { pgliteEngine } from "../helpers/databases.ts";

describe("connecting an account on a private address", () => {
  let sandbox: MastodonSandbox;
  let pds: FakePds;
  let app: EndpointServer;
  let session: { cookie: string; csrf: string };
  const token = randomBytes(12).toString("hex");
  before(async () => {
    sandbox = await startMastodonSandbox({ accessToken: token, user: "alice" });
    pds = await startFakePds({ handle: "alice.test", password: "abcd-efgh-ijkl-mnop" });
    app = await startEndpointServer({ engine: pgliteEngine, targets: [] });
    session = await app.server.signIn();
  });
  after(async () => {
    await app?.close();
    await closeAll({ sandbox }, pds);
  });

  let attempts = 0;
  const post = (type: string, fields: Record<string, string>) => {
    attempts++;
    return fetch(`${app.url}/syndicate/accounts/${type}`, {
      method: "POST",
      headers: {
        cookie: session.cookie,
        accept: "text/html",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ _csrf: session.csrf, ...fields }),
      redirect: "manual",
    });
  };
  const stored = async () =>
    (await app.server.host.database?.query("SELECT id FROM connected_accounts"))?.rows.length ?? 0;

  it("refuses a Mastodon instance, a Bluesky entryway and a Micropub endpoint on 127.0.0.1", async () => {
    const mastodon = await post("mastodon", { instance: sandbox.url, accessToken: token });
    assert.equal(mastodon.status, 400);
    assert.match(await mastodon.text(), /is on a private address/);
    assert.equal(sandbox.requests.length, 0, "the instance was never asked");

    const bluesky = await post("bluesky", {
      identifier: "alice.test",
      password: "abcd-efgh-ijkl-mnop",
      entryway: pds.url,
      plcDirectory: pds.url,
    });
    assert.equal(bluesky.status, 400);
    assert.match(await bluesky.text(), /is on a private address/);
    assert.equal(pds.calls.length, 0, "the PDS was never asked");

    const micropub = await post("micropub", {
      micropubEndpoint: `${sandbox.url}/micropub`,
      accessToken: token,
    });
    assert.equal(micropub.status, 400);
    assert.equal(await stored(), 0);
  });

  it("answers 429 past the connect attempts a session may make", async () => {
    while (attempts < CONNECT_LIMIT.limit) {
      const answer = await post("mastodon", { instance: sandbox.url, accessToken: token });
      assert.equal(answer.status, 400);
    }
    const limited = await post("mastodon", { instance: sandbox.url, accessToken: token });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get("retry-after")) > 0);
  });
});
