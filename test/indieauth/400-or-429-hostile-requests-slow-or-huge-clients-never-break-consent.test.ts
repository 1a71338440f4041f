// What strangers and broken clients send the IndieAuth endpoints: malformed parameters get a 400
// with the standard error (never a 5xx); refusals count per address like the other public routes
// (429 past application.rateLimit.public); a client page that never answers or is huge costs the
// owner at most the fetch timeout, and the consent page still shows.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { CLIENT_METADATA_TIMEOUT_MS } from "../../src/server/indieauth/client-metadata.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { authorizationUrl, type ClientApp, pkcePair, startClientApp } from "./indieauth-client.ts";

describe("hostile requests, rate limits and slow or huge client pages", () => {
  let server: TestServer;
  let client: ClientApp;
  let session: { cookie: string };
  before(async () => {
    client = await startClientApp();
    server = await startTestServer({
      database: false,
      config: { plugins: [], fetch: { allowPrivate: true }, application: { rateLimit: { public: 12 } } },
    });
    session = await server.signIn();
  });
  after(async () => {
    await server.close();
    await client.close();
  });

  it("answers malformed requests 400 with an OAuth error, never 5xx", async () => {
    const base = authorizationUrl(`${server.url}/auth`, client, { challenge: pkcePair().challenge });
    const requests: Array<[string, RequestInit]> = [
      [`${base}&client_id=https://second.example/`, {}],
      [`${server.url}/auth?client_id=${"x".repeat(5000)}&redirect_uri=y`, {}],
      [`${server.url}/auth?client_id[a]=1&redirect_uri=2`, {}],
      [
        `${server.url}/auth/token`,
        { method: "POST", headers: { "content-type": "application/json" }, body: "{}" },
      ],
      [
        `${server.url}/auth/token`,
        {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "grant_type=authorization_code&code[]=a&code[]=b",
        },
      ],
      [
        `${server.url}/auth/token`,
        {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "grant_type=refresh_token",
        },
      ],
      [
        `${server.url}/auth/revoke`,
        { method: "POST", headers: { "content-type": "text/plain" }, body: "token=x" },
      ],
    ];
    for (const [url, init] of requests) {
      const response = await fetch(url, {
        ...init,
        headers: { accept: "text/html", cookie: session.cookie, ...init.headers },
      });
      assert.equal(response.status, 400, `${init.method ?? "GET"} ${url.slice(0, 120)}`);
      // The token endpoint answers JSON even to a browser's Accept.
      if (url.includes("/auth/"))
        assert.equal(((await response.json()) as { error: string }).error, "invalid_request");
      else await response.body?.cancel();
    }
  });

  it("shows the consent page without the client's details when its page hangs or is huge", async () => {
    client.setPage("hang");
    const started = Date.now();
    const slow = await fetch(
      authorizationUrl(`${server.url}/auth`, client, { challenge: pkcePair().challenge }),
      {
        headers: { cookie: session.cookie, accept: "text/html" },
      },
    );
    const took = Date.now() - started;
    assert.equal(slow.status, 200);
    assert.match(await slow.text(), /Let 127\.0\.0\.1:\d+ sign you in\?/);
    // It waited for the client's page, then gave up. The upper bound only tells a give-up from a
    // hang (the page never answers): a loaded machine is late by seconds, never by thirty (decision 0053).
    assert.ok(
      took >= CLIENT_METADATA_TIMEOUT_MS - 200 && took < CLIENT_METADATA_TIMEOUT_MS + 30_000,
      `took ${took} ms`,
    );

    // 2 MB of page before its h-app: only the first 256 KB are read, so the h-app is never seen.
    client.setPage({
      type: "text/html",
      body: `<!doctype html><p>${"x".repeat(2_000_000)}</p><div class="h-app"><span class="p-name">Far Away</span></div>`,
    });
    const huge = await fetch(
      authorizationUrl(`${server.url}/auth`, client, { challenge: pkcePair().challenge }),
      {
        headers: { cookie: session.cookie, accept: "text/html" },
      },
    );
    assert.equal(huge.status, 200);
    assert.ok(!(await huge.text()).includes("Far Away"));
  });

  it("counts refused token requests per address, 429 past the public limit", async () => {
    let status = 0;
    for (let attempt = 0; attempt < 20 && status !== 429; attempt++) {
      const response = await fetch(`${server.url}/auth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "authorization_code", code: `guess-${attempt}` }),
      });
      status = response.status;
      await response.body?.cancel();
    }
    assert.equal(status, 429);
  });
});
