// The consent answer and the authorization endpoint's way back to a verified client: a code grants
// only the scopes the client asked for and the owner ticked (a form forged to tick more grants no
// more); a refusal, an approval and a malformed request each go back to the client's redirect URI
// with its state and this server's iss (RFC 9207), and the consent page is never cached.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import {
  authorizationUrl,
  type ClientApp,
  consentOverHttp,
  exchangeCode,
  pkcePair,
  startClientApp,
} from "./indieauth-client.ts";

describe("consent grants only what was asked and ticked, and answers the client", () => {
  let server: TestServer;
  let client: ClientApp;
  let session: { cookie: string; csrf: string };
  before(async () => {
    client = await startClientApp("Verified App");
    // allowPrivate: the loopback client's own page is read, so the client is verified.
    server = await startTestServer({
      database: false,
      config: { plugins: [], fetch: { allowPrivate: true } },
    });
    session = await server.signIn();
  });
  after(async () => {
    await server.close();
    await client.close();
  });

  const issuer = () => `${server.url}/`;

  /** The consent page's hidden fields for this request. */
  async function consentFields(url: string) {
    const page = await fetch(url, { headers: { cookie: session.cookie, accept: "text/html" } });
    assert.equal(page.status, 200);
    const html = await page.text();
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? "";
    return { headers: page.headers, html, ticket: field("ticket"), csrf: field("_csrf") };
  }

  /** The scope of the token a code approved with these form fields gives. */
  async function grantedScope(asked: string, ticked: string[]) {
    const pkce = pkcePair();
    const { ticket, csrf } = await consentFields(
      authorizationUrl(`${server.url}/auth`, client, { challenge: pkce.challenge, scope: asked }),
    );
    const body = new URLSearchParams({ _csrf: csrf, ticket, decision: "approve" });
    for (const scope of ticked) body.append("scope", scope);
    const answer = await fetch(`${server.url}/auth/consent`, {
      method: "POST",
      headers: { cookie: session.cookie, "content-type": "application/x-www-form-urlencoded" },
      body,
      redirect: "manual",
    });
    assert.equal(answer.status, 303);
    const code = new URL(answer.headers.get("location") ?? "").searchParams.get("code") ?? "";
    const token = await exchangeCode(`${server.url}/auth/token`, {
      grant_type: "authorization_code",
      code,
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      code_verifier: pkce.verifier,
    });
    assert.equal(token.status, 200, JSON.stringify(token.body));
    return token.body.scope;
  }

  it("grants no scope the client did not ask for, even when a forged form ticks it", async () => {
    assert.equal(await grantedScope("create", ["create", "delete", "update"]), "create");
  });

  it("grants only the scopes the owner ticked", async () => {
    assert.equal(await grantedScope("create update delete", ["update"]), "update");
    assert.equal(await grantedScope("create update", ["update", "create"]), "create update");
  });

  it("sends an approval back with the code, the client's state and this server's iss", async () => {
    const back = await consentOverHttp(
      authorizationUrl(`${server.url}/auth`, client, { challenge: pkcePair().challenge, state: "s-42" }),
      session,
      { decision: "approve" },
    );
    assert.equal(`${back.origin}${back.pathname}`, client.redirectUri);
    assert.ok(back.searchParams.get("code"));
    assert.equal(back.searchParams.get("state"), "s-42");
    assert.equal(back.searchParams.get("iss"), issuer());
  });

  it("sends a refusal back as access_denied with the state and iss, and no code", async () => {
    const back = await consentOverHttp(
      authorizationUrl(`${server.url}/auth`, client, { challenge: pkcePair().challenge, state: "s-43" }),
      session,
      { decision: "deny" },
    );
    assert.equal(`${back.origin}${back.pathname}`, client.redirectUri);
    assert.equal(back.searchParams.get("error"), "access_denied");
    assert.equal(back.searchParams.get("error_description"), "The owner declined");
    assert.equal(back.searchParams.get("state"), "s-43");
    assert.equal(back.searchParams.get("iss"), issuer());
    assert.equal(back.searchParams.get("code"), null);
  });

  it("sends each malformed request back to the verified client as an OAuth error", async () => {
    const { challenge } = pkcePair();
    for (const [options, error, description] of [
      [{ extra: { response_type: "token" } }, "unsupported_response_type", 'response_type must be "code"'],
      [
        { extra: { code_challenge: "" } },
        "invalid_request",
        "code_challenge is missing: PKCE (S256) is required",
      ],
      [
        { method: "plain" },
        "invalid_request",
        'code_challenge_method must be "S256"; "plain" is not accepted',
      ],
      [
        { extra: { code_challenge: "short" } },
        "invalid_request",
        "code_challenge must be 43 to 128 characters of base64url",
      ],
    ] as const) {
      const response = await fetch(
        authorizationUrl(`${server.url}/auth`, client, { challenge, state: "s-44", ...options }),
        { headers: { cookie: session.cookie, accept: "text/html" }, redirect: "manual" },
      );
      assert.equal(response.status, 303, error);
      const back = new URL(response.headers.get("location") ?? "");
      assert.equal(`${back.origin}${back.pathname}`, client.redirectUri);
      assert.deepEqual(
        Object.fromEntries(back.searchParams),
        { error, error_description: description, state: "s-44", iss: issuer() },
        description,
      );
    }
    // No state: the error goes back without one.
    const url = new URL(authorizationUrl(`${server.url}/auth`, client, { challenge }));
    url.searchParams.delete("state");
    const response = await fetch(url, { headers: { cookie: session.cookie }, redirect: "manual" });
    assert.equal(response.status, 303);
    assert.deepEqual(Object.fromEntries(new URL(response.headers.get("location") ?? "").searchParams), {
      error: "invalid_request",
      error_description: "state is missing",
      iss: issuer(),
    });
  });

  it("refuses a request it cannot read, and a consent answer without the session's CSRF token, saying why", async () => {
    const url = new URL(authorizationUrl(`${server.url}/auth`, client, { challenge: pkcePair().challenge }));
    url.searchParams.delete("client_id");
    const unreadable = await fetch(url, { headers: { cookie: session.cookie, accept: "application/json" } });
    assert.equal(unreadable.status, 400);
    assert.deepEqual(await unreadable.json(), {
      error: "invalid_request",
      error_description: "The authorization request's client_id is missing",
    });
    // A client_id IndieAuth does not allow is refused with its reason, before anyone is asked to sign in.
    const httpClient = authorizationUrl(
      `${server.url}/auth`,
      { clientId: "http://app.example/", redirectUri: "http://app.example/cb" },
      { challenge: pkcePair().challenge },
    );
    for (const cookie of [session.cookie, ""]) {
      const refused = await fetch(httpClient, {
        headers: { cookie, accept: "application/json" },
        redirect: "manual",
      });
      assert.equal(refused.status, 400);
      assert.deepEqual(await refused.json(), {
        error: "invalid_request",
        error_description:
          "client_id must be an https URL (http only on a loopback address such as 127.0.0.1)",
      });
    }
    const { ticket } = await consentFields(
      authorizationUrl(`${server.url}/auth`, client, { challenge: pkcePair().challenge }),
    );
    const forged = await fetch(`${server.url}/auth/consent`, {
      method: "POST",
      headers: {
        cookie: session.cookie,
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
      },
      body: new URLSearchParams({ ticket, decision: "approve", scope: "create" }),
      redirect: "manual",
    });
    assert.equal(forged.status, 403);
    assert.deepEqual(await forged.json(), {
      error: "forbidden",
      error_description:
        "This form has expired or was sent from another site. Reload the page and try again.",
    });
  });

  it("never lets the consent page be cached, nor framed, and lets its form lead only to the client", async () => {
    const { headers, html } = await consentFields(
      authorizationUrl(`${server.url}/auth`, client, { challenge: pkcePair().challenge }),
    );
    assert.equal(headers.get("cache-control"), "no-store");
    const policy = headers.get("content-security-policy") ?? "";
    assert.match(policy, /frame-ancestors 'none'/);
    assert.match(policy, new RegExp(`form-action 'self' ${client.url}$`));
    assert.match(html, /Let Verified App sign you in\?/);
  });
});
