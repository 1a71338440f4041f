// SSRF: a Micropub client names a photo on the server's own machine (or a URL that redirects there),
// hoping the server fetches it and uploads the bytes to Mastodon. Every such fetch is refused before
// a connection is made, with one message that does not tell which ports answer.
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { after, before, describe, it } from "node:test";
import { listen, type RunningServer } from "../../dev/sandbox/http-kit.ts";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import { isPrivateAddress } from "../../src/net/private-addresses.ts";
import { OutgoingFetchError, safeFetch } from "../../src/net/safe-fetch.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { callOptions, note, publication } from "../syndicators/fixtures.ts";

const strict = { policy: { ownSite: "https://example.org/" }, maxBytes: 1_000_000, timeoutMs: 5000 };

async function refusal(promise: Promise<unknown>): Promise<OutgoingFetchError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof OutgoingFetchError, `expected an OutgoingFetchError, got ${error}`);
    return error;
  }
  assert.fail("the fetch was not refused");
}

describe("outgoing fetches of URLs from posts refuse private addresses", () => {
  let internal: RunningServer;
  let internalHits: string[];
  let redirector: RunningServer;
  let closedPort: number;

  before(async () => {
    internalHits = [];
    internal = await listen((request: IncomingMessage, response) => {
      internalHits.push(request.url ?? "");
      response.writeHead(200, { "content-type": "image/jpeg" });
      response.end("secret internal bytes");
    });
    redirector = await listen((request, response) => {
      const hops = Number(new URL(request.url ?? "/", "http://x").searchParams.get("hops") ?? "0");
      const location = hops > 0 ? `${redirector.url}/?hops=${hops - 1}` : `${internal.url}/admin/secret.jpg`;
      response.writeHead(302, { location });
      response.end();
    });
    const spare = await listen(() => {});
    closedPort = Number(new URL(spare.url).port);
    await spare.close();
  });
  after(() => Promise.all([internal.close(), redirector.close()]));

  for (const address of [
    "127.0.0.1",
    "127.1.2.3",
    "10.0.0.1",
    "172.16.5.4",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "fd12:3456::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:10.0.0.1",
    "64:ff9b::7f00:1",
    "2002:7f00:1::",
  ]) {
    it(`${address} is private`, () => assert.equal(isPrivateAddress(address), true));
  }
  for (const address of ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111", "::ffff:93.184.216.34"]) {
    it(`${address} is public`, () => assert.equal(isPrivateAddress(address), false));
  }

  it("refuses a loopback literal, in every spelling, without connecting", async () => {
    const port = new URL(internal.url).port;
    for (const host of ["127.0.0.1", "[::1]", "[::ffff:127.0.0.1]", "2130706433", "0x7f.1", "0.0.0.0"]) {
      const error = await refusal(safeFetch(`http://${host}:${port}/photo.jpg`, strict));
      assert.equal(error.kind, "refused", host);
      assert.match(error.message, /refused: private address$/);
    }
    assert.deepEqual(internalHits, []);
  });

  it("refuses a name that resolves to loopback (checked on the address connected to)", async () => {
    const port = new URL(internal.url).port;
    const error = await refusal(safeFetch(`http://localhost:${port}/photo.jpg`, strict));
    assert.equal(error.kind, "refused");
    assert.deepEqual(internalHits, []);
  });

  it("an open and a closed port are refused alike: no port scanning through error messages", async () => {
    const open = await refusal(safeFetch(`${internal.url}/x`, strict));
    const closed = await refusal(safeFetch(`http://127.0.0.1:${closedPort}/x`, strict));
    assert.equal(
      open.message.replace(internal.url, "URL"),
      closed.message.replace(`http://127.0.0.1:${closedPort}`, "URL"),
    );
    assert.doesNotMatch(open.message, /ECONNREFUSED|200|secret/);
  });

  it("the user's own site is allowed, even on loopback; a redirect from it to elsewhere private is not", async () => {
    const own = { ...strict, policy: { ownSite: `${redirector.url}/` } };
    const error = await refusal(safeFetch(`${redirector.url}/?hops=1`, own));
    assert.equal(error.kind, "refused");
    assert.equal(error.url, `${internal.url}/admin/secret.jpg`);
    assert.deepEqual(internalHits, []);
    const direct = await safeFetch(`${internal.url}/mine.jpg`, {
      ...strict,
      policy: { ownSite: `${internal.url}/` },
    });
    assert.equal(direct.status, 200);
    assert.deepEqual(internalHits, ["/mine.jpg"]);
    internalHits.length = 0;
  });

  it("a site under a path does not vouch for the rest of its host", async () => {
    const own = { ...strict, policy: { ownSite: `${internal.url}/~alice/` } };
    assert.equal((await safeFetch(`${internal.url}/~alice/p.jpg`, own)).status, 200);
    assert.equal((await refusal(safeFetch(`${internal.url}/~alicex/p.jpg`, own))).kind, "refused");
    assert.equal((await refusal(safeFetch(`${internal.url}/admin`, own))).kind, "refused");
    internalHits.length = 0;
  });

  it("at most 3 redirects are followed", async () => {
    const anywhere = { ...strict, policy: { allowPrivate: true } };
    assert.equal((await safeFetch(`${redirector.url}/?hops=2`, anywhere)).status, 200);
    const error = await refusal(safeFetch(`${redirector.url}/?hops=3`, anywhere));
    assert.equal(error.kind, "too-many-redirects");
    internalHits.length = 0;
  });

  it("fetch.allowPrivate lets a home network's photos through", async () => {
    const response = await safeFetch(`${internal.url}/nas/photo.jpg`, {
      ...strict,
      policy: { allowPrivate: true },
    });
    assert.equal(response.status, 200);
    assert.equal(new TextDecoder().decode(response.body), "secret internal bytes");
    internalHits.length = 0;
  });

  it("a body over the cap is refused, or cut when asked", async () => {
    const anywhere = { policy: { allowPrivate: true }, timeoutMs: 5000 };
    const error = await refusal(safeFetch(`${internal.url}/big`, { ...anywhere, maxBytes: 5 }));
    assert.equal(error.kind, "too-large");
    const cut = await safeFetch(`${internal.url}/big`, { ...anywhere, maxBytes: 6, overflow: "truncate" });
    assert.equal(new TextDecoder().decode(cut.body), "secret");
    assert.equal(cut.truncated, true);
    internalHits.length = 0;
  });

  it("a server that never answers is given up on at the timeout", async () => {
    const silent = await listen(() => {});
    try {
      const error = await refusal(
        safeFetch(`${silent.url}/`, { policy: { allowPrivate: true }, maxBytes: 10, timeoutMs: 200 }),
      );
      assert.equal(error.kind, "timeout");
    } finally {
      await silent.close();
    }
  });
});

describe("Mastodon never uploads a photo from a private address", () => {
  let sandbox: MastodonSandbox;
  let internal: RunningServer;
  let hits = 0;
  before(async () => {
    sandbox = await startMastodonSandbox({ accessToken: "secret-token", user: "alice" });
    internal = await listen((_request, response) => {
      hits++;
      response.writeHead(200, { "content-type": "image/jpeg" });
      response.end("internal");
    });
  });
  after(() => Promise.all([sandbox.close(), internal.close()]));

  it("the send fails for good with 'refused: private address'; nothing is fetched or uploaded", async () => {
    const syndicator = new MastodonSyndicator({
      url: sandbox.url,
      user: "alice",
      accessToken: "secret-token",
    });
    const post = note({ photo: [{ url: `${internal.url}/metadata.jpg`, alt: "x" }] });
    await assert.rejects(syndicator.syndicate(post, publication, callOptions()), (error: unknown) => {
      assert.ok(error instanceof SyndicationError);
      assert.equal(error.permanent, true);
      assert.equal(
        error.message,
        `Mastodon: could not fetch the photo ${internal.url}/metadata.jpg: refused: private address`,
      );
      return true;
    });
    assert.equal(hits, 0);
    assert.equal(sandbox.media.length, 0);
    assert.equal(sandbox.statuses.length, 0);
  });
});
