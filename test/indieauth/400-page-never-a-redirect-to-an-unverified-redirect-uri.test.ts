// Decision 0045: /auth was an open redirect. A request naming any client_id and a redirect_uri on
// its host, with an error in it (response_type=token), answered 303 to that redirect_uri, straight
// after sign-in too. RFC 6749 §4.1.2.1: an error goes back to the redirect URI only once the client
// and its redirect URI are verified (here: the client's own page, fetched from its client_id, answers
// as a client); otherwise the owner sees the error page, in their language.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { type ClientApp, pkcePair, startClientApp } from "./indieauth-client.ts";

describe("the authorization endpoint never redirects an error to an unverified redirect_uri", () => {
  let server: TestServer;
  let open: TestServer;
  let client: ClientApp;
  before(async () => {
    client = await startClientApp("Real App");
    // Without fetch.allowPrivate the loopback client's page is never fetched: it cannot be verified.
    server = await startTestServer({ database: false, config: { plugins: [] } });
    open = await startTestServer({ database: false, config: { plugins: [], fetch: { allowPrivate: true } } });
  });
  after(async () => {
    await server.close();
    await open.close();
    await client.close();
  });

  const attack = (base: string, extra: Record<string, string> = {}) => {
    const url = new URL(`${base}/auth`);
    url.searchParams.set("client_id", client.clientId);
    url.searchParams.set("redirect_uri", `${client.url}/phish`);
    url.searchParams.set("response_type", "token");
    for (const [name, value] of Object.entries(extra)) url.searchParams.set(name, value);
    return url.href;
  };

  it("shows the error page, not a 303 to the phishing page, for a signed-in owner (as straight after sign-in)", async () => {
    const session = await server.signIn();
    const requests: Record<string, string>[] = [{}, { state: "s" }, { response_type: "code", state: "s" }];
    for (const extra of requests) {
      const response = await fetch(attack(server.url, extra), {
        headers: { cookie: session.cookie, accept: "text/html" },
        redirect: "manual",
      });
      assert.equal(response.status, 400, JSON.stringify(extra));
      assert.equal(response.headers.get("location"), null);
      const html = await response.text();
      assert.match(html, /could not be verified/);
    }
    assert.equal(client.callbacks.length, 0);
    assert.ok(!client.requests.includes("/phish"));
  });

  it("answers API clients with invalid_request JSON and speaks French to a French browser", async () => {
    const session = await server.signIn();
    const json = await fetch(attack(server.url), {
      headers: { cookie: session.cookie, accept: "application/json" },
      redirect: "manual",
    });
    assert.equal(json.status, 400);
    assert.deepEqual(await json.json(), {
      error: "unsupported_response_type",
      error_description:
        'response_type must be "code"; the client could not be verified, so you are not sent back to it',
    });
    // The page names the client and the reason.
    const english = await fetch(attack(server.url), {
      headers: { cookie: session.cookie, accept: "text/html", "accept-language": "en" },
      redirect: "manual",
    });
    assert.match(
      await english.text(),
      new RegExp(
        `${new URL(client.url).host} asked to sign you in, but its request is not valid \\(response_type must be &quot;code&quot;\\)`,
      ),
    );
    const french = await fetch(attack(server.url), {
      headers: { cookie: session.cookie, accept: "text/html", "accept-language": "fr" },
      redirect: "manual",
    });
    assert.match(await french.text(), /n’a pas pu être vérifiée/);
  });

  it("still sends the error back to a verified client, whose own page lists it", async () => {
    const session = await open.signIn();
    const response = await fetch(
      attack(open.url, {
        redirect_uri: client.redirectUri,
        state: "s",
        code_challenge: pkcePair().challenge,
      }),
      { headers: { cookie: session.cookie }, redirect: "manual" },
    );
    assert.equal(response.status, 303);
    const back = new URL(response.headers.get("location") ?? "");
    assert.equal(back.origin + back.pathname, client.redirectUri);
    assert.equal(back.searchParams.get("error"), "unsupported_response_type");
    // A client whose page does not answer as a client is not verified, even with allowPrivate.
    client.setPage({ type: "text/plain", body: "nothing here" });
    const unverified = await fetch(attack(open.url, { state: "s" }), {
      headers: { cookie: session.cookie, accept: "text/html" },
      redirect: "manual",
    });
    assert.equal(unverified.status, 400);
    assert.equal(unverified.headers.get("location"), null);
  });
});
