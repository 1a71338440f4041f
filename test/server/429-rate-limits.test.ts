// Rate limits (issue 2): sign-in, public and authenticated plug-in routes are each limited per
// client; over the limit: 429 with the standard RateLimit headers and Retry-After.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import TestPlugin from "../fixtures/test-plugin/index.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { browser } from "./pages.ts";

// draft-8 headers may list several policies (a route under a plug-in's mountPath passes the public
// limiter on its way to the authenticated one); the one named "<limit>-in-1min" is the one that refused.
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

  it("limits public plug-in routes, answering JSON 429 to API clients", async () => {
    const server = await start();
    for (let i = 0; i < 4; i++) assert.equal((await fetch(`${server.url}/test-mount/hello`)).status, 200);
    const limited = await fetch(`${server.url}/test-mount/hello`);
    assertRateLimited(limited, 4);
    const body = await limited.json();
    assert.equal(body.error, "too_many_requests");
    assert.match(body.error_description, /try again/);
  });

  it("limits authenticated plug-in routes, counting requests without credentials too", async () => {
    const server = await start();
    const token = await server.token();
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${server.url}/test-mount/whoami`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(response.status, 200);
    }
    assert.equal((await fetch(`${server.url}/test-mount/whoami`)).status, 401);
    assert.equal((await fetch(`${server.url}/status`)).status, 401);
    const limited = await fetch(`${server.url}/test-mount/whoami`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assertRateLimited(limited, 5);
  });
});
