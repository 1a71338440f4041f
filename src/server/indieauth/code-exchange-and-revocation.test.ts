// The token endpoint's decisions on a code (spendCode) and a revocation (revokeToken), against the
// real in-memory grant store and token registry (what the server uses without a database) and the
// real token issuer; the HTTP paths are tested in test/indieauth/.
import assert from "node:assert/strict";
import { afterEach, describe, it, mock } from "node:test";
import type { HttpError } from "../../contract/http-error.ts";
import { tokenRegistry } from "../auth/token-registry.ts";
import { TokenIssuer } from "../auth/tokens.ts";
import { CODE_LIFETIME_MS, grantStore } from "./grant-store.ts";
import type { IndieAuthServer } from "./indieauth-server.ts";
import { s256 } from "./pkce.ts";
import { revokeToken } from "./revocation.ts";
import { spendCode } from "./token.ts";

const ME = "https://me.example/";
const CLIENT = "https://app.example/";
const REDIRECT = "https://app.example/callback";
const VERIFIER = "v".repeat(43);

function server() {
  const tokens = new TokenIssuer("a-server-secret-of-thirty-two-characters", ME);
  const store = grantStore(null);
  const registry = tokenRegistry(null);
  // Only what spendCode and revokeToken read of the running host: its token issuer.
  const indieauth = { host: { tokens }, store, registry, me: ME } as unknown as IndieAuthServer;
  const code = () =>
    store.issueCode({
      grantId: "grant-1",
      clientId: CLIENT,
      redirectUri: REDIRECT,
      codeChallenge: s256(VERIFIER),
      scope: ["create"],
      me: ME,
    });
  const exchange = (code: string, overrides: Record<string, unknown> = {}) =>
    spendCode(indieauth, {
      grant_type: "authorization_code",
      code,
      client_id: CLIENT,
      redirect_uri: REDIRECT,
      code_verifier: VERIFIER,
      ...overrides,
    });
  /** An access token and refresh token issued for grant-1, as the token endpoint records them. */
  const issued = async (grantId = "grant-1") => {
    const { token, claims } = await tokens.mint({ scope: ["create"], clientId: CLIENT, lifetimeDays: 1 });
    const keepUntil = new Date(Date.now() + 86_400_000);
    await registry.record(claims, { id: grantId, keepUntil });
    const refresh = await store.issueRefreshToken({
      grantId,
      clientId: CLIENT,
      scope: ["create"],
      accessTokenId: claims.id,
      expiresAt: keepUntil,
    });
    return { token, id: claims.id, refresh };
  };
  return { indieauth, store, registry, code, exchange, issued };
}

/** The OAuth error a promise is refused with. */
async function refused(promise: Promise<unknown>, error: string, description?: RegExp) {
  await assert.rejects(promise, (thrown: HttpError) => {
    assert.equal(thrown.status, 400);
    assert.equal(thrown.error, error);
    if (description) assert.match(thrown.message, description);
    return true;
  });
}

afterEach(() => mock.timers.reset());

describe("spending an authorization code", () => {
  it("answers the grant for the client, redirect_uri and verifier it was issued with", async () => {
    const { code, exchange } = server();
    const grant = await exchange(await code());
    assert.equal(grant.grantId, "grant-1");
    assert.equal(grant.clientId, CLIENT);
    assert.deepEqual(grant.scope, ["create"]);
  });

  it("refuses another client_id, redirect_uri or verifier, and the code is gone after", async () => {
    const { code, exchange } = server();
    for (const [field, value, reason] of [
      ["client_id", "https://evil.example/", /another client_id/],
      ["redirect_uri", "https://app.example/other", /redirect_uri differs/],
      ["code_verifier", "w".repeat(43), /code_verifier does not match/],
    ] as const) {
      const spent = await code();
      await refused(exchange(spent, { [field]: value }), "invalid_grant", reason);
      await refused(exchange(spent), "invalid_grant", /used before/);
    }
  });

  it("refuses an unknown code and a malformed request", async () => {
    const { exchange } = server();
    await refused(exchange("no-such-code"), "invalid_grant", /Unknown authorization code/);
    await refused(exchange("x", { code_verifier: undefined }), "invalid_request", /code_verifier is missing/);
    await refused(exchange("x", { grant_type: "refresh_token" }), "invalid_request");
    await refused(exchange("x".repeat(201)), "invalid_request", /code is not valid/);
  });

  it("lives ten minutes: refused at the moment it ends, accepted just before", async () => {
    const { code, exchange } = server();
    mock.timers.enable({ apis: ["Date"], now: 1_000_000 });
    const late = await code();
    const inTime = await code();
    mock.timers.tick(CODE_LIFETIME_MS - 1);
    assert.equal((await exchange(inTime)).grantId, "grant-1");
    mock.timers.tick(1);
    await refused(exchange(late), "invalid_grant", /expired/);
  });

  it("revokes what a code was exchanged for when it is shown again", async () => {
    const { code, exchange, issued, registry } = server();
    const spent = await code();
    await exchange(spent);
    const { id } = await issued();
    await refused(exchange(spent), "invalid_grant", /used before; the tokens issued for it are revoked/);
    assert.equal(await registry.isRevoked(id), true);
  });
});

describe("revoking a token (RFC 7009)", () => {
  it("ends the whole grant from its access token: the token and its refresh token", async () => {
    const { indieauth, issued, registry, store } = server();
    const first = await issued();
    const second = await issued();
    const other = await issued("grant-2");
    await revokeToken(indieauth, { token: first.token });
    assert.equal(await registry.isRevoked(first.id), true);
    assert.equal(await registry.isRevoked(second.id), true);
    assert.equal(await store.peekRefreshToken(second.refresh), null);
    assert.equal(await registry.isRevoked(other.id), false);
    assert.notEqual(await store.peekRefreshToken(other.refresh), null);
  });

  it("ends the whole grant from its refresh token", async () => {
    const { indieauth, issued, registry, store } = server();
    const { id, refresh } = await issued();
    await revokeToken(indieauth, { token: refresh });
    assert.equal(await registry.isRevoked(id), true);
    assert.equal(await store.peekRefreshToken(refresh), null);
  });

  it("answers nothing about an unknown token, and refuses a request without one", async () => {
    const { indieauth, issued, registry } = server();
    const { id } = await issued();
    await revokeToken(indieauth, { token: "not-a-token-of-ours" });
    assert.equal(await registry.isRevoked(id), false);
    await refused(revokeToken(indieauth, {}), "invalid_request", /token is missing/);
    await refused(revokeToken(indieauth, { token: "" }), "invalid_request");
  });
});
