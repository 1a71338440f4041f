// The authorization endpoint's checks before and after the consent page: client_id rules
// (IndieAuth §3.2), client metadata read only from public addresses (a loopback client's page is
// never fetched without fetch.allowPrivate; a redirect URI elsewhere needs the client to list it),
// and a consent answer that needs the session's CSRF token and a ticket this session was shown.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import {
  authorizationUrl,
  type ClientApp,
  consentOverHttp,
  pkcePair,
  startClientApp,
} from "./indieauth-client.ts";

describe("authorization requests, client metadata and forged consent", () => {
  let server: TestServer;
  let open: TestServer;
  let client: ClientApp;
  let session: { cookie: string; csrf: string };
  before(async () => {
    client = await startClientApp("Metadata App");
    server = await startTestServer({ database: false, config: { plugins: [] } });
    open = await startTestServer({ database: false, config: { plugins: [], fetch: { allowPrivate: true } } });
    session = await server.signIn();
  });
  after(async () => {
    await server.close();
    await open.close();
    await client.close();
  });

  const consentPage = (
    base: string,
    cookie: string,
    params: { clientId: string; redirectUri: string },
    extra = {},
  ) =>
    fetch(authorizationUrl(`${base}/auth`, params, { challenge: pkcePair().challenge, ...extra }), {
      headers: { cookie, accept: "application/json" },
      redirect: "manual",
    });

  it("sends a visitor who is not signed in to sign in, and back", async () => {
    const url = authorizationUrl(`${server.url}/auth`, client, { challenge: pkcePair().challenge });
    const response = await fetch(url, { redirect: "manual" });
    assert.equal(response.status, 303);
    const login = new URL(response.headers.get("location") ?? "", server.url);
    assert.equal(login.pathname, "/session/login");
    assert.equal(login.searchParams.get("redirect"), url.slice(server.url.length));
  });

  it("refuses client_ids IndieAuth does not allow, with invalid_request and no redirect", async () => {
    for (const clientId of [
      "http://app.example/",
      "https://203.0.113.5/",
      "https://app.example/../x",
      "https://user:pw@app.example/",
      "https://app.example/#frag",
      "not a url",
    ]) {
      const response = await consentPage(server.url, session.cookie, {
        clientId,
        redirectUri: "https://app.example/callback",
      });
      assert.equal(response.status, 400, clientId);
      assert.equal(((await response.json()) as { error: string }).error, "invalid_request", clientId);
    }
  });

  it("never fetches a loopback client's page without fetch.allowPrivate, and still asks the owner", async () => {
    const before = client.requests.length;
    const response = await fetch(
      authorizationUrl(`${server.url}/auth`, client, { challenge: pkcePair().challenge }),
      {
        headers: { cookie: session.cookie, accept: "text/html" },
      },
    );
    assert.equal(response.status, 200);
    const html = await response.text();
    assert.equal(client.requests.length, before, "no request reached the client");
    assert.ok(!html.includes("Metadata App"));
    assert.match(html, /<h1 id="consent-title">Let 127\.0\.0\.1:\d+ sign you in\?<\/h1>/);
    // The consent form may lead to the client's redirect URI, and nowhere else.
    assert.match(
      response.headers.get("content-security-policy") ?? "",
      new RegExp(`form-action 'self' ${client.url}$`),
    );
  });

  it("speaks French to a French browser", async () => {
    const response = await fetch(
      authorizationUrl(`${server.url}/auth`, client, { challenge: pkcePair().challenge }),
      {
        headers: { cookie: session.cookie, accept: "text/html", "accept-language": "fr-FR,fr;q=0.9" },
      },
    );
    const html = await response.text();
    assert.match(html, /<html lang="fr">/);
    assert.match(html, /Autoriser 127\.0\.0\.1:\d+ à vous connecter avec votre site\u202f\?/);
    assert.match(html, />Autoriser</);
    assert.match(html, />Refuser</);
    assert.match(html, /créer des articles/);
  });

  it("accepts a redirect URI on another host only when the client's metadata lists it", async () => {
    const ownSession = await open.signIn();
    const elsewhere = "http://localhost:9/elsewhere";
    const refused = await consentPage(open.url, ownSession.cookie, {
      clientId: client.clientId,
      redirectUri: elsewhere,
    });
    assert.equal(refused.status, 400);
    client.setPage({
      type: "application/json",
      body: JSON.stringify({
        client_id: client.clientId,
        client_name: "JSON App",
        redirect_uris: [elsewhere],
      }),
    });
    const listed = await consentPage(open.url, ownSession.cookie, {
      clientId: client.clientId,
      redirectUri: elsewhere,
    });
    assert.equal(listed.status, 200);
    // A document naming another client_id is not this client's.
    client.setPage({
      type: "application/json",
      body: JSON.stringify({ client_id: "https://other.example/", redirect_uris: [elsewhere] }),
    });
    const foreign = await consentPage(open.url, ownSession.cookie, {
      clientId: client.clientId,
      redirectUri: elsewhere,
    });
    assert.equal(foreign.status, 400);
    // The HTML form: <link rel="redirect_uri">.
    client.setPage({
      type: "text/html",
      body: `<!doctype html><link rel="redirect_uri" href="${elsewhere}"><div class="h-app"><span class="p-name">Html App</span></div>`,
    });
    const fromHtml = await fetch(
      authorizationUrl(
        `${open.url}/auth`,
        { clientId: client.clientId, redirectUri: elsewhere },
        { challenge: pkcePair().challenge },
      ),
      { headers: { cookie: ownSession.cookie, accept: "text/html" } },
    );
    assert.equal(fromHtml.status, 200);
    assert.match(await fromHtml.text(), /Let Html App sign you in\?/);
  });

  it("refuses a consent answer without the CSRF token, or with a ticket it did not issue", async () => {
    const url = authorizationUrl(`${server.url}/auth`, client, { challenge: pkcePair().challenge });
    const html = await (
      await fetch(url, { headers: { cookie: session.cookie, accept: "text/html" } })
    ).text();
    const ticket = /name="ticket" value="([^"]+)"/.exec(html)?.[1] ?? "";
    const answer = (fields: Record<string, string>, cookie = session.cookie) =>
      fetch(`${server.url}/auth/consent`, {
        method: "POST",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: new URLSearchParams({ decision: "approve", scope: "create", ...fields }),
        redirect: "manual",
      });
    const noCsrf = await answer({ ticket });
    assert.equal(noCsrf.status, 403);
    const forged = await answer({ ticket: `${ticket.slice(0, -4)}AAAA`, _csrf: session.csrf });
    assert.equal(forged.status, 400);
    // Another session (signed in elsewhere) cannot answer with this one's ticket.
    const other = await server.signIn();
    const stolen = await answer({ ticket, _csrf: other.csrf }, other.cookie);
    assert.equal(stolen.status, 400);
    const signedOut = await answer({ ticket, _csrf: session.csrf }, "");
    assert.equal(signedOut.status, 403);
    const right = await answer({ ticket, _csrf: session.csrf });
    assert.equal(right.status, 303);
    assert.ok(new URL(right.headers.get("location") ?? "").searchParams.get("code"));
  });

  it("answers a code meant only for sign-in with me at the authorization endpoint, and no token", async () => {
    const pkce = pkcePair();
    const back = await consentOverHttp(
      authorizationUrl(`${server.url}/auth`, client, { challenge: pkce.challenge, scope: "" }),
      session,
      { decision: "approve" },
    );
    const fields = {
      grant_type: "authorization_code",
      code: back.searchParams.get("code") as string,
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      code_verifier: pkce.verifier,
    };
    const profile = await fetch(`${server.url}/auth`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams(fields),
    });
    assert.equal(profile.status, 200);
    assert.deepEqual(await profile.json(), { me: server.host.publication.me });
  });
});
