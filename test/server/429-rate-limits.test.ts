// Rate limits (decision 0006, decision 0006): sign-in attempts per address; authenticated routes per credential
// (session or token); requests without a valid credential, and those a public route refuses, per
// address in buckets of their own. Over a limit: 429 with the standard RateLimit headers and Retry-After.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import TestPlugin from "../fixtures/test-plugin/index.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { browser } from "./pages.ts";

// The draft-8 policy named "<limit>-in-1min" is the one that refused.
function assertRateLimited(response: Response, limit: number): void {
  assert.equal(response.status, 429);
  const name = `"${limit}-in-1min"`;
  assert.ok(response.headers.get("ratelimit-policy")?.includes(`${name}; q=${limit}; w=60`));
  assert.match(response.headers.get("ratelimit") ?? "", new RegExp(`${name}; r=0; t=\\d+`));
  assert.match(response.headers.get("retry-after") ?? "", /^\d+$/);
}

// Each limit gets a server of its own, so that no test spends another's budget.
describe("rate limits", () => {
  const servers: TestServer[] = [];
  const start = async () => {
    const server = await startTestServer({
      database: false,
      config: {
        plugins: [],
        application: { rateLimit: { windowMs: 60_000, signIn: 3, public: 4, authenticated: 5 } },
      },
      plugins: [new TestPlugin()],
    });
    servers.push(server);
    return server;
  };
  after(() => Promise.all(servers.map((server) => server.close())));

  it("answers the sign-in attempt after the limit with 429, RateLimit headers and a localised page", async () => {
    const server = await start();
    const attempt = (language: string) =>
      fetch(`${server.url}/session/login`, {
        method: "POST",
        headers: browser({
          "content-type": "application/x-www-form-urlencoded",
          "accept-language": language,
        }),
        body: new URLSearchParams({ password: "guess" }),
      });
    for (let i = 0; i < 3; i++) {
      const response = await attempt("en");
      assert.equal(response.status, 401);
      assert.match(response.headers.get("ratelimit") ?? "", new RegExp(`r=${2 - i};`));
    }
    const limited = await attempt("de");
    assertRateLimited(limited, 3);
    assert.match(await limited.text(), /Zu viele Anfragen/);
    const rightPassword = await fetch(`${server.url}/session/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ password: server.password }),
      redirect: "manual",
    });
    assert.equal(rightPassword.status, 429, "even the right password waits for the window");
    assert.equal((await rightPassword.json()).error, "too_many_requests");
  });

  it("limits the requests a public route refuses, per address, never the ones it accepts", async () => {
    const server = await start();
    const unsigned = () => fetch(`${server.url}/test-mount/signed`, { method: "POST" });
    for (let i = 0; i < 4; i++) assert.equal((await unsigned()).status, 401);
    const limited = await unsigned();
    assertRateLimited(limited, 4);
    const body = await limited.json();
    assert.equal(body.error, "too_many_requests");
    assert.match(body.error_description, /try again/);

    const signed = await fetch(`${server.url}/test-mount/signed`, {
      method: "POST",
      headers: { "x-test-signature": "good" },
    });
    assert.equal(
      signed.status,
      200,
      "a request that proves its sender is never refused for unsigned traffic",
    );
    assert.equal(signed.headers.get("ratelimit"), null, "and is not counted against the address");
    for (let i = 0; i < 6; i++) assert.equal((await fetch(`${server.url}/test-mount/hello`)).status, 200);
  });

  it("limits authenticated routes per credential, and requests without one per address apart", async () => {
    const server = await start();
    const owner = await server.token();
    const whoami = (headers: Record<string, string> = {}) =>
      fetch(`${server.url}/test-mount/whoami`, { headers: { accept: "application/json", ...headers } });

    // Strangers from the same address (all clients share one behind a proxy) fill their own bucket.
    for (let i = 0; i < 4; i++) assert.equal((await whoami()).status, 401);
    assertRateLimited(await whoami(), 4);
    assertRateLimited(await whoami({ authorization: "Bearer forged" }), 4);

    for (let i = 0; i < 5; i++) {
      const response = await whoami({ authorization: `Bearer ${owner}` });
      assert.equal(response.status, 200, `the owner's request ${i + 1}`);
      assert.equal(response.headers.getSetCookie().length, 0);
      assert.match(response.headers.get("ratelimit") ?? "", new RegExp(`r=${4 - i};`));
      assert.equal(
        response.headers.get("ratelimit-policy")?.split(",").length,
        1,
        "one RateLimit header set per response",
      );
    }
    assertRateLimited(await whoami({ authorization: `Bearer ${owner}` }), 5);

    const session = await server.signIn();
    assert.equal((await whoami({ cookie: session.cookie })).status, 200, "a session has its own budget");
    const another = await server.token();
    assert.equal((await whoami({ authorization: `Bearer ${another}` })).status, 200, "so does each token");
  });
});
