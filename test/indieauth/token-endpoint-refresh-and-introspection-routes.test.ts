// The token endpoint over HTTP (refresh, the early days' verification, introspection), against the
// real in-memory grant store and token registry, the real token issuer and the host's error handler;
// test/indieauth/ runs the same paths through the whole host and a database.
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, afterEach, before, describe, it, mock } from "node:test";
import express from "express";
import { decodeJwt } from "jose";
import { tokenRegistry } from "../../src/server/auth/token-registry.ts";
import { TokenIssuer } from "../../src/server/auth/tokens.ts";
import { errorHandler } from "../../src/server/errors.ts";
import { grantStore } from "../../src/server/indieauth/grant-store.ts";
import type { IndieAuthServer } from "../../src/server/indieauth/indieauth-server.ts";
import { s256 } from "../../src/server/indieauth/pkce.ts";
import { tokenRoutes } from "../../src/server/indieauth/token.ts";
import { createLogger } from "../../src/server/logger.ts";

const ME = "https://me.example/";
const CLIENT = "https://app.example/";
const REDIRECT = "https://app.example/callback";
const VERIFIER = "v".repeat(43);
const ACCESS_DAYS = 2;
const REFRESH_DAYS = 30;
const DAY_S = 86_400;

const tokens = new TokenIssuer("a-server-secret-of-thirty-two-characters", ME);
const store = grantStore(null);
const registry = tokenRegistry(null);
// Only what the token routes read of the running host: its token issuer and the lifetimes.
const indieauth = {
  host: {
    tokens,
    hostConfig: {
      application: { indieauth: { accessTokenDays: ACCESS_DAYS, refreshTokenDays: REFRESH_DAYS } },
    },
  },
  store,
  registry,
  me: ME,
} as unknown as IndieAuthServer;

let base = "";
let close = () => {};
before(async () => {
  const app = express();
  app.use(express.urlencoded({ extended: true }));
  const router = express.Router();
  tokenRoutes(router, indieauth);
  app.use("/auth", router);
  app.use(errorHandler(createLogger("silent"), false));
  const listening = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => listening.once("listening", resolve));
  base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}/auth`;
  close = () => listening.close();
});
after(() => close());
afterEach(() => mock.timers.reset());

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function post(path: string, fields: Record<string, string>, bearer?: string): Promise<Answer> {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
    },
    body: new URLSearchParams(fields),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A code the store issued for a new grant of these scopes, to this test's client. */
const issueCode = (scope: string[]) =>
  store.issueCode({
    grantId: crypto.randomUUID(),
    clientId: CLIENT,
    redirectUri: REDIRECT,
    codeChallenge: s256(VERIFIER),
    scope,
    me: ME,
  });

/** The client redeeming a code with the redirect_uri and code_verifier it was issued for. */
const redeem = (code: string) =>
  post("/token", {
    grant_type: "authorization_code",
    code,
    client_id: CLIENT,
    redirect_uri: REDIRECT,
    code_verifier: VERIFIER,
  });

/** A code for a new grant of these scopes, exchanged: the client's first tokens. */
async function firstTokens(scope = ["create", "update"]): Promise<Answer> {
  const answer = await redeem(await issueCode(scope));
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer;
}

const refresh = (refreshToken: unknown, extra: Record<string, string> = {}) =>
  post("/token", {
    grant_type: "refresh_token",
    refresh_token: String(refreshToken),
    client_id: CLIENT,
    ...extra,
  });

/** The error an answer carries, with its status. */
function refused(answer: Answer, status: number, error: string, description?: RegExp) {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  assert.equal(answer.body.error, error);
  if (description) assert.match(String(answer.body.error_description), description);
}

const introspect = (token: string, caller?: string) => post("/introspect", { token }, caller);

describe("the token endpoint's answer", () => {
  it("is a bearer access token of the grant's scope, its lifetime, the owner and a refresh token", async () => {
    const before = Math.floor(Date.now() / 1000);
    const { body } = await firstTokens();
    assert.equal(body.token_type, "Bearer");
    assert.equal(body.scope, "create update");
    assert.equal(body.me, ME);
    assert.equal(typeof body.refresh_token, "string");
    const lifetime = ACCESS_DAYS * DAY_S;
    assert.ok(Math.abs((body.expires_in as number) - lifetime) <= 2, `expires_in ${body.expires_in}`);
    const claims = decodeJwt(body.access_token as string);
    assert.ok(Math.abs((claims.exp as number) - before - lifetime) <= 2);
    assert.deepEqual(
      { client_id: claims.client_id, scope: claims.scope },
      { client_id: CLIENT, scope: "create update" },
    );
  });

  it("keeps the refresh token for the configured days: alive just before, refused after", async () => {
    const { body } = await firstTokens();
    const grant = await store.peekRefreshToken(body.refresh_token as string);
    assert.ok(grant);
    const lifetimeMs = grant.expiresAt.getTime() - Date.now();
    assert.ok(Math.abs(lifetimeMs - REFRESH_DAYS * DAY_S * 1000) < 5_000, `${lifetimeMs} ms`);
  });

  it("refuses a code that grants no scope: such a code only says who signed in", async () => {
    const answer = await redeem(await issueCode([]));
    refused(answer, 400, "invalid_grant", /No scope was granted with this code/);
  });

  it("names a missing or unknown grant_type", async () => {
    refused(await post("/token", { code: "x" }), 400, "invalid_request", /^grant_type is missing$/);
    refused(
      await post("/token", { grant_type: "password", username: "a", password: "b" }),
      400,
      "unsupported_grant_type",
      /must be "authorization_code" or "refresh_token"/,
    );
  });

  it("is JSON that no cache keeps", async () => {
    const response = await fetch(`${base}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=password",
    });
    assert.equal(response.headers.get("cache-control"), "no-store");
    assert.match(response.headers.get("content-type") ?? "", /json/);
  });
});

describe("refreshing (RFC 6749 §6)", () => {
  it("gives a new access token and a new refresh token of the same grant and scope", async () => {
    const first = await firstTokens();
    const second = await refresh(first.body.refresh_token);
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.equal(second.body.scope, "create update");
    assert.equal(second.body.me, ME);
    assert.notEqual(second.body.refresh_token, first.body.refresh_token);
    assert.notEqual(second.body.access_token, first.body.access_token);
    const claims = decodeJwt(second.body.access_token as string);
    assert.equal(claims.scope, "create update");
    assert.equal(claims.client_id, CLIENT);
    // The new pair belongs to the first one's grant: revoking the grant reaches it.
    const grantId = await store.grantOf({ refreshToken: first.body.refresh_token as string });
    assert.equal(await store.grantOf({ refreshToken: second.body.refresh_token as string }), grantId);
  });

  it("narrows the scope when asked, whatever the spaces between its words", async () => {
    const first = await firstTokens();
    const narrowed = await refresh(first.body.refresh_token, { scope: "  update   " });
    assert.equal(narrowed.status, 200, JSON.stringify(narrowed.body));
    assert.equal(narrowed.body.scope, "update");
    assert.equal(decodeJwt(narrowed.body.access_token as string).scope, "update");
  });

  it("refuses a wider scope without spending the refresh token", async () => {
    const first = await firstTokens(["create"]);
    refused(
      await refresh(first.body.refresh_token, { scope: "create delete" }),
      400,
      "invalid_scope",
      /keep or narrow the scope, never widen it/,
    );
    // The genuine refresh after it still works: the bad request did not make it a replay.
    const genuine = await refresh(first.body.refresh_token);
    assert.equal(genuine.status, 200, JSON.stringify(genuine.body));
    assert.equal(genuine.body.scope, "create");
  });

  it("refuses a refresh token presented by another client, without spending it", async () => {
    const first = await firstTokens();
    refused(
      await refresh(first.body.refresh_token, { client_id: "https://evil.example/" }),
      400,
      "invalid_grant",
      /issued to another client_id/,
    );
    assert.equal((await refresh(first.body.refresh_token)).status, 200);
  });

  it("treats a refresh token used twice as stolen: the grant's newest tokens are revoked", async () => {
    const first = await firstTokens();
    const second = await refresh(first.body.refresh_token);
    refused(
      await refresh(first.body.refresh_token),
      400,
      "invalid_grant",
      /used before; the grant is revoked/,
    );
    const access = second.body.access_token as string;
    assert.equal(await registry.isRevoked(decodeJwt(access).jti as string), true);
    refused(await refresh(second.body.refresh_token), 400, "invalid_grant");
  });

  it("refuses an unknown refresh token and a malformed request", async () => {
    refused(
      await refresh("no-such-token"),
      400,
      "invalid_grant",
      /Unknown, expired or revoked refresh token/,
    );
    refused(
      await post("/token", { grant_type: "refresh_token", client_id: CLIENT }),
      400,
      "invalid_request",
      /refresh_token is missing/,
    );
    refused(await refresh("x".repeat(201)), 400, "invalid_request", /refresh_token is not valid/);
  });

  it("cannot bring back a revoked client once its access token has expired, while its refresh token lives", async () => {
    mock.timers.enable({ apis: ["Date"], now: Date.now() });
    const first = await firstTokens();
    await registry.revoke(decodeJwt(first.body.access_token as string).jti as string);
    // Past the access token's end, well before the refresh token's: a new token's record sweeps
    // what has ended, and the revocation must not be swept with the access token.
    mock.timers.tick((ACCESS_DAYS + 1) * DAY_S * 1000);
    await firstTokens();
    refused(
      await refresh(first.body.refresh_token),
      400,
      "invalid_grant",
      /owner revoked this client's access/,
    );
  });

  it("cannot bring back a client whose access the owner revoked: the grant ends", async () => {
    const first = await firstTokens();
    await registry.revoke(decodeJwt(first.body.access_token as string).jti as string);
    refused(
      await refresh(first.body.refresh_token),
      400,
      "invalid_grant",
      /owner revoked this client's access/,
    );
    assert.equal(await store.peekRefreshToken(first.body.refresh_token as string), null);
  });
});

describe("revoking with action=revoke (IndieAuth's early days)", () => {
  it("ends the token's grant and answers an empty object", async () => {
    const { body } = await firstTokens();
    const answer = await post("/token", { action: "revoke", token: body.access_token as string });
    assert.deepEqual(answer, { status: 200, body: {} });
    assert.equal(await registry.isRevoked(decodeJwt(body.access_token as string).jti as string), true);
    refused(await refresh(body.refresh_token), 400, "invalid_grant");
  });
});

describe("verifying a token (GET, IndieAuth's early days)", () => {
  const verify = async (authorization?: string) => {
    const response = await fetch(`${base}/token`, {
      headers: authorization === undefined ? {} : { authorization },
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it("says whose a live token is, for which client and scope", async () => {
    const { body } = await firstTokens();
    const answer = await verify(`Bearer ${body.access_token}`);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { me: ME, client_id: CLIENT, scope: "create update" });
  });

  it("refuses no token, a forged one and a revoked one with 401", async () => {
    refused(await verify(), 401, "unauthorized", /Authorization: Bearer <token>/);
    refused(await verify("Bearer not.a.token"), 401, "unauthorized", /not valid, expired or revoked/);
    const { body } = await firstTokens();
    await registry.revoke(decodeJwt(body.access_token as string).jti as string);
    refused(
      await verify(`Bearer ${body.access_token}`),
      401,
      "unauthorized",
      /not valid, expired or revoked/,
    );
  });
});

describe("introspection (RFC 7662)", () => {
  it("describes a live token to a caller holding a live token", async () => {
    const caller = (await firstTokens(["media"])).body.access_token as string;
    const { body } = await firstTokens();
    const claims = decodeJwt(body.access_token as string);
    const answer = await introspect(body.access_token as string, caller);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, {
      active: true,
      me: ME,
      client_id: CLIENT,
      scope: "create update",
      exp: claims.exp,
      iat: claims.iat,
    });
  });

  it("answers only active: false for a revoked, forged or unknown token", async () => {
    const caller = (await firstTokens()).body.access_token as string;
    const { body } = await firstTokens();
    await registry.revoke(decodeJwt(body.access_token as string).jti as string);
    assert.deepEqual((await introspect(body.access_token as string, caller)).body, { active: false });
    assert.deepEqual((await introspect("not.a.token", caller)).body, { active: false });
  });

  it("refuses a caller without a token, with a forged one, or with a revoked one", async () => {
    const { body } = await firstTokens();
    const token = body.access_token as string;
    refused(await introspect(token), 401, "unauthorized", /Introspection needs Authorization: Bearer/);
    refused(await introspect(token, "forged.token.here"), 401, "unauthorized");
    const revoked = (await firstTokens()).body.access_token as string;
    await registry.revoke(decodeJwt(revoked).jti as string);
    refused(await introspect(token, revoked), 401, "unauthorized");
    // The revoked caller's own token asked about by a live caller is inactive, not an error.
    assert.deepEqual((await introspect(revoked, token)).body, { active: false });
  });

  it("refuses a request that names no token", async () => {
    const caller = (await firstTokens()).body.access_token as string;
    refused(await post("/introspect", {}, caller), 400, "invalid_request", /^token is missing$/);
  });
});
