// The sandbox Mastodon's OAuth server answers as Mastodon's documentation and source say
// (dev/sandbox/mastodon-oauth.ts names where each behaviour comes from), so a client that connects
// to it connects to an instance.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";

const redirectUri = "http://127.0.0.1:9/accounts/mastodon/callback";
const challengeOf = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");

describe("The sandbox Mastodon speaks Mastodon's OAuth", () => {
  let sandbox: MastodonSandbox;
  let now = Date.parse("2026-11-28T10:00:00Z");

  const form = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${sandbox.url}${path}`, {
      method: "POST",
      headers,
      body: new URLSearchParams(fields),
      redirect: "manual",
    });

  async function register(scopes = "profile write:statuses write:media", uris = redirectUri) {
    const response = await form("/api/v1/apps", { client_name: "possekit", redirect_uris: uris, scopes });
    assert.equal(response.status, 200);
    return (await response.json()) as { client_id: string; client_secret: string; scopes: string[] };
  }

  /** Opens the authorize page and presses a button on it, as the owner does in a browser. */
  async function authorize(query: Record<string, string>, button: "Authorize" | "Deny" = "Authorize") {
    const page = await fetch(`${sandbox.url}/oauth/authorize?${new URLSearchParams(query)}`);
    assert.equal(page.status, 200);
    const html = await page.text();
    const forms = [...html.matchAll(/<form method="post" action="\/oauth\/authorize">(.*?)<\/form>/gs)];
    const chosen = forms.find((match) => match[1]?.includes(`>${button}</button>`));
    assert.ok(chosen, `the page has a ${button} button`);
    const fields = Object.fromEntries(
      [...(chosen[1] ?? "").matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((match) => [
        match[1] ?? "",
        (match[2] ?? "").replace(/&#(\d+);/g, (_all, code: string) => String.fromCharCode(Number(code))),
      ]),
    );
    return form("/oauth/authorize", fields);
  }

  async function codeFor(app: { client_id: string }, verifier: string, scope = "profile write:statuses") {
    const answer = await authorize({
      response_type: "code",
      client_id: app.client_id,
      redirect_uri: redirectUri,
      scope,
      state: "s1",
      code_challenge: challengeOf(verifier),
      code_challenge_method: "S256",
    });
    assert.equal(answer.status, 302);
    const location = new URL(answer.headers.get("location") ?? "");
    assert.equal(location.searchParams.get("state"), "s1");
    return location.searchParams.get("code") ?? "";
  }

  const exchange = (app: { client_id: string; client_secret: string }, code: string, verifier?: string) =>
    form("/oauth/token", {
      grant_type: "authorization_code",
      code,
      client_id: app.client_id,
      client_secret: app.client_secret,
      redirect_uri: redirectUri,
      ...(verifier === undefined ? {} : { code_verifier: verifier }),
    });

  before(async () => {
    sandbox = await startMastodonSandbox({ accessToken: "configured", user: "alice", now: () => now });
  });
  after(() => sandbox.close());

  it("publishes its metadata at /.well-known/oauth-authorization-server (4.3+), with S256 and profile", async () => {
    const response = await fetch(`${sandbox.url}/.well-known/oauth-authorization-server`);
    const metadata = (await response.json()) as Record<string, unknown>;
    assert.equal(metadata.issuer, `${sandbox.url}/`);
    assert.equal(metadata.authorization_endpoint, `${sandbox.url}/oauth/authorize`);
    assert.equal(metadata.token_endpoint, `${sandbox.url}/oauth/token`);
    assert.equal(metadata.revocation_endpoint, `${sandbox.url}/oauth/revoke`);
    assert.equal(metadata.app_registration_endpoint, `${sandbox.url}/api/v1/apps`);
    assert.deepEqual(metadata.code_challenge_methods_supported, ["S256"]);
    assert.ok((metadata.scopes_supported as string[]).includes("profile"));
  });

  it("answers 404 there when it plays a Mastodon older than 4.3", async () => {
    const old = await startMastodonSandbox({ accessToken: "t", instanceApi: "v1" });
    try {
      const response = await fetch(`${old.url}/.well-known/oauth-authorization-server`);
      assert.equal(response.status, 404);
    } finally {
      await old.close();
    }
  });

  it("registers apps with their scopes; refuses an unknown scope and a relative redirect URI (422)", async () => {
    const app = await register();
    assert.deepEqual(app.scopes, ["profile", "write:statuses", "write:media"]);
    assert.ok(app.client_id && app.client_secret);
    const badScope = await form("/api/v1/apps", {
      client_name: "x",
      redirect_uris: redirectUri,
      scopes: "everything",
    });
    assert.equal(badScope.status, 422);
    const badUri = await form("/api/v1/apps", {
      client_name: "x",
      redirect_uris: "/callback",
      scopes: "read",
    });
    assert.equal(badUri.status, 422);
    assert.deepEqual(await badUri.json(), {
      error: "Validation failed: Redirect URI must be an absolute URI.",
    });
  });

  it("shows a real authorize page with the app's name, its scopes and an Authorize button", async () => {
    const app = await register();
    const page = await fetch(
      `${sandbox.url}/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: app.client_id, redirect_uri: redirectUri, scope: "profile write:statuses" })}`,
    );
    assert.match(page.headers.get("content-type") ?? "", /text\/html/);
    const html = await page.text();
    assert.match(html, /possekit/);
    assert.match(html, /<code>write:statuses<\/code>/);
    assert.match(html, /<button class="authorize" type="submit">Authorize<\/button>/);
  });

  it("exchanges a code only with its PKCE verifier (a wrong or missing one: 400 invalid_grant), once", async () => {
    const app = await register();
    const verifier = "v".repeat(43);
    const code = await codeFor(app, verifier);
    for (const wrong of ["w".repeat(43), undefined]) {
      const refused = await exchange(app, code, wrong);
      assert.equal(refused.status, 400);
      assert.equal(((await refused.json()) as { error: string }).error, "invalid_grant");
    }
    const granted = await exchange(app, code, verifier);
    assert.equal(granted.status, 200);
    const token = (await granted.json()) as { access_token: string; token_type: string; scope: string };
    assert.equal(token.token_type, "Bearer");
    assert.equal(token.scope, "profile write:statuses");
    const replayed = await exchange(app, code, verifier);
    assert.equal(replayed.status, 400);
    assert.equal(((await replayed.json()) as { error: string }).error, "invalid_grant");
  });

  it("refuses an expired code (10 minutes) and a plain code_challenge_method", async () => {
    const app = await register();
    const verifier = "x".repeat(43);
    const code = await codeFor(app, verifier);
    now += 10 * 60 * 1000;
    const expired = await exchange(app, code, verifier);
    assert.equal(expired.status, 400);
    const plain = await fetch(
      `${sandbox.url}/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: app.client_id, redirect_uri: redirectUri, scope: "profile", state: "s", code_challenge: verifier, code_challenge_method: "plain" })}`,
      { redirect: "manual" },
    );
    assert.equal(plain.status, 302);
    const location = new URL(plain.headers.get("location") ?? "");
    assert.equal(location.searchParams.get("error"), "invalid_request");
    assert.equal(location.searchParams.get("state"), "s");
  });

  it("401 invalid_client for a wrong secret or a forgotten app, with Doorkeeper's description", async () => {
    const app = await register();
    const code = await codeFor(app, "y".repeat(43));
    const wrong = await exchange({ ...app, client_secret: "nope" }, code, "y".repeat(43));
    assert.equal(wrong.status, 401);
    const body = (await wrong.json()) as { error: string; error_description: string };
    assert.equal(body.error, "invalid_client");
    assert.match(body.error_description, /unknown client/);
    sandbox.forgetApps();
    const gone = await form("/oauth/token", {
      grant_type: "client_credentials",
      client_id: app.client_id,
      client_secret: app.client_secret,
      scope: "profile",
    });
    assert.equal(gone.status, 401);
    const page = await fetch(
      `${sandbox.url}/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: app.client_id, redirect_uri: redirectUri })}`,
    );
    assert.equal(page.status, 400);
    assert.match(await page.text(), /invalid_client/);
  });

  it("enforces scopes: profile reaches only verify_credentials; posting needs write:statuses (403)", async () => {
    const app = await register("profile write:media");
    const verifier = "z".repeat(43);
    const code = await codeFor(app, verifier, "profile");
    const { access_token } = (await (await exchange(app, code, verifier)).json()) as { access_token: string };
    const headers = { authorization: `Bearer ${access_token}` };
    const me = await fetch(`${sandbox.url}/api/v1/accounts/verify_credentials`, { headers });
    assert.equal(((await me.json()) as { username: string }).username, "alice");
    const post = await form("/api/v1/statuses", { status: "Hi" }, headers);
    assert.equal(post.status, 403);
    assert.deepEqual(await post.json(), { error: "This action is outside the authorized scopes" });
  });

  it("revokes a token (200 {}, then 401 on the API); another app's token: 403 unauthorized_client", async () => {
    const app = await register();
    const other = await register();
    const verifier = "r".repeat(43);
    const code = await codeFor(app, verifier);
    const { access_token } = (await (await exchange(app, code, verifier)).json()) as { access_token: string };
    const byOther = await form("/oauth/revoke", {
      client_id: other.client_id,
      client_secret: other.client_secret,
      token: access_token,
    });
    assert.equal(byOther.status, 403);
    assert.equal(((await byOther.json()) as { error: string }).error, "unauthorized_client");
    for (let time = 0; time < 2; time++) {
      const revoked = await form("/oauth/revoke", {
        client_id: app.client_id,
        client_secret: app.client_secret,
        token: access_token,
      });
      assert.equal(revoked.status, 200);
      assert.deepEqual(await revoked.json(), {});
    }
    const me = await fetch(`${sandbox.url}/api/v1/accounts/verify_credentials`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    assert.equal(me.status, 401);
  });

  it("redirects Deny with error=access_denied and the state; shows the code for the out-of-band URI", async () => {
    const app = await register("profile", `${redirectUri} urn:ietf:wg:oauth:2.0:oob`);
    const denied = await authorize(
      {
        response_type: "code",
        client_id: app.client_id,
        redirect_uri: redirectUri,
        scope: "profile",
        state: "d",
      },
      "Deny",
    );
    const location = new URL(denied.headers.get("location") ?? "");
    assert.equal(location.searchParams.get("error"), "access_denied");
    assert.equal(location.searchParams.get("state"), "d");
    const shown = await authorize({
      response_type: "code",
      client_id: app.client_id,
      redirect_uri: "urn:ietf:wg:oauth:2.0:oob",
      scope: "profile",
    });
    assert.equal(shown.status, 200);
    assert.match(await shown.text(), /<code id="code">[\w-]{20,}<\/code>/);
  });
});
