// A stranger (no session, no token) asks /health of a server that reads a feed whose site has a
// Micropub endpoint and whose feed answers an error: before, the answer named the feed's URL, the
// write-back endpoint, the token's variable and the remote's error text. Now a stranger learns the
// overall state only; the signed-in owner and a token's holder get the detail; a forged, foreign
// or revoked token is a stranger's. The answer is never kept by a shared cache.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { listen, type RunningServer } from "../../dev/sandbox/http-kit.ts";
import { EndpointSyndicate } from "../../src/plugin/endpoint-syndicate.ts";
import { startTarget, type Target } from "../endpoint/endpoint-server.ts";
import { eventually } from "../helpers/eventually.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

const TOKEN_ENV = "BLOG_WRITE_BACK_TOKEN_VARIABLE";
const REMOTE_ERROR = "upstream db01.internal refused: password authentication failed";

describe("/health tells a stranger only the overall state", () => {
  let feedSite: RunningServer;
  let target: Target;
  let server: TestServer;
  const secrets = () => [
    feedSite.url,
    "/private-feed.xml",
    "/micropub-write-back",
    TOKEN_ENV,
    "db01.internal",
  ];

  before(async () => {
    feedSite = await listen((_request, response) => {
      response.writeHead(500, { "content-type": "text/plain" }).end(REMOTE_ERROR);
    });
    target = await startTarget();
    const plugin = new EndpointSyndicate(
      {
        schedule: { enabled: true, whenLive: false },
        targets: { checkAtStart: false },
        feeds: [
          {
            url: `${feedSite.url}/private-feed.xml`,
            targets: [target.uid],
            micropub: { endpoint: `${feedSite.url}/micropub-write-back`, tokenEnv: TOKEN_ENV },
          },
        ],
      },
      { env: { [TOKEN_ENV]: "the-blogs-token" } },
    );
    server = await startTestServer({
      config: { plugins: [], fetch: { allowPrivate: true } },
      plugins: [target.syndicator(), plugin],
    });
    // The feed has been read and failed: its error is in the report.
    await eventually("the feed's failure is reported", async () => {
      const token = await server.token();
      const body = await (
        await fetch(`${server.url}/health`, { headers: { authorization: `Bearer ${token}` } })
      ).text();
      return body.includes("500") ? true : undefined;
    });
  });
  after(async () => {
    await server?.close();
    await target?.sandbox.close();
    await feedSite?.close();
  });

  const health = (headers: Record<string, string> = {}) => fetch(`${server.url}/health`, { headers });

  it("a stranger gets the status and the database's state, nothing else", async () => {
    for (const headers of [
      {},
      { authorization: "Bearer not-a-token" },
      { authorization: "Basic dXNlcjpwYXNz" },
      { cookie: "possekit_session=forged" },
    ] as Array<Record<string, string>>) {
      const response = await health(headers);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("cache-control"), "no-store");
      assert.match(response.headers.get("vary") ?? "", /Authorization/);
      const text = await response.text();
      assert.deepEqual(JSON.parse(text), { status: "ok", database: "ok" }, JSON.stringify(headers));
      for (const secret of secrets()) assert.ok(!text.includes(secret), `${secret} is not told`);
    }
  });

  it("a token's holder and the signed-in owner get the detail", async () => {
    const byToken = await (await health({ authorization: `Bearer ${await server.token("media")}` })).text();
    const { cookie } = await server.signIn();
    const bySession = await (await health({ cookie })).text();
    for (const text of [byToken, bySession]) {
      const body = JSON.parse(text) as { engine?: string; "endpoint-syndicate"?: { feeds?: unknown[] } };
      assert.equal(body.engine, "pglite");
      assert.equal(body["endpoint-syndicate"]?.feeds?.length, 1);
      assert.ok(text.includes(`${feedSite.url}/private-feed.xml`), "the feed's URL");
    }
  });

  it("a revoked token is a stranger's", async () => {
    const token = await server.token();
    const bearer = { authorization: `Bearer ${token}` };
    assert.ok("engine" in ((await (await health(bearer)).json()) as object), "the detail while it holds");
    const { cookie, csrf } = await server.signIn();
    const id = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")).jti as string;
    const revoked = await fetch(`${server.url}/status/tokens/revoke`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ _csrf: csrf, id }),
    });
    assert.equal(revoked.status, 303);
    const refused = await fetch(`${server.url}/micropub?q=config`, { headers: bearer });
    assert.equal(refused.status, 401, "the token is revoked");
    assert.deepEqual(await (await health(bearer)).json(), { status: "ok", database: "ok" });
  });
});
