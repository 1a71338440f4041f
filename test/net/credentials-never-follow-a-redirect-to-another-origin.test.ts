// A blog (or a target's service) answers a request that carries the user's token with a redirect
// to another origin: a server on the same machine, another port, stands in for another host. The
// token (Authorization, Cookie, Proxy-Authorization, a header the caller names as a credential, a
// password in a POST's body) never reaches it, on every path that sends one: the outgoing-fetch
// rules themselves, the remote Micropub source, and the syndicators (Micropub, Mastodon, Bluesky,
// Internet Archive). A feed's Micropub write-back is tested in its own world
// (test/sources/feeds/a-feed-sites-micropub-endpoint-gets-the-copies-links.test.ts). A redirect
// within the origin still carries the token: the endpoint's own URL moving is not an attack.
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { after, before, beforeEach, describe, it } from "node:test";
import { listen, type RunningServer, readBody } from "../../dev/sandbox/http-kit.ts";
import { safeFetch } from "../../src/net/safe-fetch.ts";
import { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import { InternetArchiveSyndicator } from "../../src/syndicators/internet-archive/index.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { MicropubSyndicator } from "../../src/syndicators/micropub/index.ts";
import { closeAll } from "../endpoint/endpoint-server.ts";
import { polled, startLocal, startRemote, startTarget } from "../sources/remote-micropub.ts";
import { callOptions, note, publication } from "../syndicators/fixtures.ts";

interface Received {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

const CREDENTIALS = ["authorization", "cookie", "proxy-authorization", "x-site-key"];

/** The headers of `request` that carry a credential, by name. */
const credentialsIn = (request: Received) =>
  Object.fromEntries(
    CREDENTIALS.filter((name) => request.headers[name] !== undefined).map((name) => [
      name,
      request.headers[name],
    ]),
  );

describe("credentials never follow a redirect to another origin", () => {
  /** The other origin: records every request and answers 200 with an empty JSON object. */
  let elsewhere: RunningServer;
  let received: Received[];
  /** The service the user configured: a redirect for every request, to `elsewhere` or to itself. */
  let service: RunningServer;
  let serviceReceived: Received[];
  let status = 302;

  before(async () => {
    elsewhere = await listen(async (request, response) => {
      const body = (await readBody(request, 1_000_000)).toString("utf8");
      received.push({
        method: request.method ?? "",
        path: request.url ?? "",
        headers: request.headers,
        body,
      });
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    service = await listen(async (request, response) => {
      const body = (await readBody(request, 1_000_000)).toString("utf8");
      serviceReceived.push({
        method: request.method ?? "",
        path: request.url ?? "",
        headers: request.headers,
        body,
      });
      const path = request.url ?? "/";
      // /same/… moves within the origin once, then to the other origin; everything else leaves at once.
      if (path.startsWith("/same/")) {
        response.writeHead(status, { location: path.replace("/same/", "/moved/") }).end();
        return;
      }
      response.writeHead(status, { location: `${elsewhere.url}${path}` }).end();
    });
  });
  beforeEach(() => {
    received = [];
    serviceReceived = [];
    status = 302;
  });
  after(() => Promise.all([elsewhere.close(), service.close()]));

  describe("the outgoing-fetch rules (src/net/safe-fetch.ts)", () => {
    const credentialHeaders = {
      authorization: "Bearer blog-token",
      cookie: "session=blog-session",
      "proxy-authorization": "Basic cHJveHk6c2VjcmV0",
      "x-site-key": "site-key",
    };
    for (const code of [301, 302, 303, 307, 308]) {
      it(`drops every credential when a ${code} leaves the origin, the caller's own too`, async () => {
        status = code;
        const response = await safeFetch(`${service.url}/micropub?q=source`, {
          policy: { allowPrivate: true },
          maxBytes: 10_000,
          headers: { accept: "application/json", ...credentialHeaders },
          credentialHeaders: ["X-Site-Key"],
        });
        assert.equal(response.status, 200);
        assert.equal(response.url, `${elsewhere.url}/micropub?q=source`);
        assert.equal(received.length, 1);
        assert.deepEqual(credentialsIn(received[0] as Received), {});
        assert.equal(received[0]?.headers.accept, "application/json", "other headers still go");
        assert.deepEqual(credentialsIn(serviceReceived[0] as Received), credentialHeaders);
      });
    }

    it("keeps the credentials on a redirect within the origin, and drops them when a later one leaves", async () => {
      await safeFetch(`${service.url}/same/micropub`, {
        policy: { allowPrivate: true },
        maxBytes: 10_000,
        headers: credentialHeaders,
        credentialHeaders: ["x-site-key"],
      });
      assert.deepEqual(
        serviceReceived.map((request) => [request.path, credentialsIn(request)]),
        [
          ["/same/micropub", credentialHeaders],
          ["/moved/micropub", credentialHeaders],
        ],
      );
      assert.deepEqual(
        received.map((request) => [request.path, credentialsIn(request)]),
        [["/moved/micropub", {}]],
      );
    });
  });

  it("the remote Micropub source: its poll's token stays with the blog", async () => {
    const target = await startTarget();
    const remote = await startRemote();
    const local = await startLocal(remote, target, { allowPrivate: true });
    try {
      remote.gate.redirectTo = elsewhere.url;
      remote.gate.mode = "redirect";
      local.nextPoll();
      await polled(local);
      assert.ok(received.length > 0, "the poll followed the redirect");
      for (const request of received) assert.deepEqual(credentialsIn(request), {}, request.path);
    } finally {
      await local.close();
      await closeAll(remote, target);
    }
  });

  describe("the syndicators", () => {
    it("Micropub: the token is not sent on, for the check nor for a post", async () => {
      const syndicator = new MicropubSyndicator({
        micropubEndpoint: `${service.url}/micropub`,
        accessToken: "site-token",
      });
      await assert.rejects(syndicator.verify({ signal: AbortSignal.timeout(60_000) }));
      status = 307;
      await assert.rejects(syndicator.syndicate(note(), publication, callOptions()));
      assert.equal(serviceReceived.length, 2);
      for (const request of received) assert.deepEqual(credentialsIn(request), {}, request.path);
    });

    it("Mastodon: the access token is not sent on", async () => {
      const syndicator = new MastodonSyndicator({
        url: service.url,
        user: "alice",
        accessToken: "mastodon-token",
      });
      await assert.rejects(syndicator.verify({ signal: AbortSignal.timeout(60_000) }));
      status = 307;
      await assert.rejects(syndicator.syndicate(note(), publication, callOptions()));
      assert.ok(serviceReceived.length >= 2);
      for (const request of received) assert.deepEqual(credentialsIn(request), {}, request.path);
    });

    it("Bluesky: the app password in the sign-in's body is not sent on (307 and 308 keep a body)", async () => {
      for (const code of [307, 308]) {
        status = code;
        const syndicator = new BlueskySyndicator({
          handle: "alice.example.com",
          password: "app-password",
          serviceUrl: service.url,
        });
        await assert.rejects(syndicator.verify({ signal: AbortSignal.timeout(60_000) }));
      }
      assert.ok(serviceReceived.every((request) => request.body.includes("app-password")));
      assert.deepEqual(
        received.filter((request) => request.body.includes("app-password")).map((request) => request.path),
        [],
      );
      for (const request of received) assert.deepEqual(credentialsIn(request), {}, request.path);
    });

    it("Internet Archive: the keys are not sent on", async () => {
      const syndicator = new InternetArchiveSyndicator(
        { accessKey: "access", secretKey: "secret", serviceUrl: service.url },
        {},
      );
      await assert.rejects(syndicator.verify({ signal: AbortSignal.timeout(60_000) }));
      assert.ok(serviceReceived.length >= 1);
      for (const request of received) assert.deepEqual(credentialsIn(request), {}, request.path);
    });
  });
});
