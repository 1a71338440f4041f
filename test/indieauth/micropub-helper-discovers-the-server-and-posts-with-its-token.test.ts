// An npm Micropub client, micropub-helper (unchanged, from the registry), against the server: it
// discovers the authorization, token and Micropub endpoints from the home page, builds its
// authorization URL, and uses the token the server issued to post, query and verify. Its 1.x line
// sends no PKCE, which this server requires: its own URL is refused with invalid_request, the same
// request with PKCE added goes through. (2.x, which does PKCE, needs rel-parser 2, not on the registry here.)
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import {
  type ClientApp,
  consentOverHttp,
  exchangeCode,
  pkcePair,
  startClientApp,
} from "./indieauth-client.ts";

interface MicropubHelper {
  options: Record<string, string>;
  getAuthUrl(): Promise<string>;
  getEndpointsFromUrl(url: string): Promise<{ auth: string; token: string; micropub: string }>;
  create(post: unknown, type?: "json" | "form"): Promise<string>;
  query(type: string): Promise<Record<string, unknown>>;
}
const Micropub = createRequire(import.meta.url)("micropub-helper") as new (
  options: Record<string, string>,
) => MicropubHelper;

describe("micropub-helper against the IndieAuth server", () => {
  let server: TestServer;
  let client: ClientApp;
  let session: { cookie: string };
  before(async () => {
    server = await startTestServer();
    client = await startClientApp();
  });
  after(async () => {
    await server.close();
    await client.close();
  });

  it("discovers the endpoints, and posts and queries with the token the server issued", async () => {
    const helper = new Micropub({
      me: `${server.url}/`,
      clientId: client.clientId,
      redirectUri: client.redirectUri,
      state: "helper-state",
      scope: "create update",
    });
    const authUrl = await helper.getAuthUrl();
    assert.equal(helper.options.authEndpoint, `${server.url}/auth`);
    assert.equal(helper.options.tokenEndpoint, `${server.url}/auth/token`);
    assert.equal(helper.options.micropubEndpoint, `${server.url}/micropub`);
    const url = new URL(authUrl);
    assert.equal(url.searchParams.get("client_id"), client.clientId);
    assert.equal(url.searchParams.get("state"), "helper-state");

    // Signed in only now: the library's discovery loads jsdom, which takes about as long as the
    // server keeps an idle connection (5 s), and fetch would race the server closing its pooled one.
    session = await server.signIn();
    // As the library builds it, without PKCE: refused with invalid_request. The loopback client's
    // page is not fetched here (no fetch.allowPrivate), so it is not verified: an error page, not a
    // redirect to it (decision 0045: no open redirect).
    const withoutPkce = await fetch(authUrl, {
      headers: { cookie: session.cookie, accept: "application/json" },
      redirect: "manual",
    });
    assert.equal(withoutPkce.status, 400);
    assert.equal(withoutPkce.headers.get("location"), null);
    assert.equal(((await withoutPkce.json()) as { error: string }).error, "invalid_request");

    const pkce = pkcePair();
    url.searchParams.set("code_challenge", pkce.challenge);
    url.searchParams.set("code_challenge_method", "S256");
    const back = await consentOverHttp(url.href, session, { decision: "approve" });
    const { body } = await exchangeCode(helper.options.tokenEndpoint as string, {
      grant_type: "authorization_code",
      code: back.searchParams.get("code") as string,
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      code_verifier: pkce.verifier,
    });
    helper.options.token = body.access_token as string;

    const location = await helper.create({
      type: ["h-entry"],
      properties: { content: ["From micropub-helper"] },
    });
    assert.ok(location.startsWith(server.host.publication.me), location);
    const post = await server.host.posts?.findByUrl(location);
    assert.equal(post?.properties.content, "From micropub-helper");
    const formLocation = await helper.create({ h: "entry", content: "Form-encoded too" }, "form");
    assert.ok(formLocation.startsWith(server.host.publication.me));
    const config = await helper.query("config");
    assert.ok(Array.isArray(config["syndicate-to"]));
  });
});
