// The token endpoint: authorization codes (PKCE S256) and rotating refresh tokens exchanged for the
// server's own access tokens, which the token registry records so that the status page lists and
// revokes them with every other; and the questions resource servers ask about a token (the early
// days' GET verification, introspection).
import type { Router } from "express";
import { z } from "zod";
import { unauthorized } from "../../contract/http-error.ts";
import type { CodeGrant, RefreshGrant } from "./grant-store.ts";
import type { IndieAuthServer } from "./indieauth-server.ts";
import { apiResponse, bearer, firstIssue, form, oauthError, tokenParameter } from "./oauth-http.ts";
import { verifierMatches } from "./pkce.ts";
import { revokeGrant, revokeToken } from "./revocation.ts";

const text = (max: number) => z.string().max(max);

const codeExchange = z.object({
  grant_type: z.literal("authorization_code"),
  code: text(200),
  client_id: text(2048),
  redirect_uri: text(2048),
  code_verifier: text(200),
});

const refreshRequest = z.object({
  grant_type: z.literal("refresh_token"),
  refresh_token: text(200),
  client_id: text(2048),
  scope: text(2000).optional(),
});

/** Spends a code; every mismatch is invalid_grant (RFC 6749 §5.2), and the code is gone either way. */
export async function spendCode(server: IndieAuthServer, body: Record<string, unknown>): Promise<CodeGrant> {
  const request = codeExchange.safeParse(body);
  if (!request.success) throw oauthError("invalid_request", `The request's ${firstIssue(request.error)}`);
  const { code, client_id, redirect_uri, code_verifier } = request.data;
  const redemption = await server.store.redeemCode(code);
  if (redemption.kind === "reused") {
    await revokeGrant(server, redemption.grantId);
    throw oauthError(
      "invalid_grant",
      "This authorization code was used before; the tokens issued for it are revoked",
    );
  }
  if (redemption.kind === "unknown") throw oauthError("invalid_grant", "Unknown authorization code");
  const grant = redemption.grant;
  if (grant.expiresAt.getTime() <= Date.now())
    throw oauthError("invalid_grant", "The authorization code has expired (codes live 10 minutes)");
  if (grant.clientId !== client_id)
    throw oauthError("invalid_grant", "The authorization code was issued to another client_id");
  if (grant.redirectUri !== redirect_uri)
    throw oauthError("invalid_grant", "redirect_uri differs from the authorization request's");
  if (!verifierMatches(code_verifier, grant.codeChallenge))
    throw oauthError("invalid_grant", "code_verifier does not match the code_challenge");
  return grant;
}

/** The scope a refresh asks for, if the grant allows it (it may keep or narrow, never widen). */
function narrowedScope(grant: RefreshGrant, clientId: string, asked: string | undefined): string[] {
  if (grant.clientId !== clientId)
    throw oauthError("invalid_grant", "The refresh token was issued to another client_id");
  if (asked === undefined) return grant.scope;
  const words = asked.split(/\s+/).filter(Boolean);
  if (words.some((word) => !grant.scope.includes(word)))
    throw oauthError("invalid_scope", "A refresh can keep or narrow the scope, never widen it");
  return words;
}

/** A new access token and the refresh token that replaces it, both of the grant. */
async function issueTokens(
  { host, registry, store, me }: IndieAuthServer,
  grant: { grantId: string; clientId: string; scope: string[] },
) {
  const { accessTokenDays, refreshTokenDays } = host.hostConfig.application.indieauth;
  const { token, claims } = await host.tokens.mint({
    scope: grant.scope,
    clientId: grant.clientId,
    lifetimeDays: accessTokenDays,
  });
  const refreshExpiresAt = new Date(Date.now() + refreshTokenDays * 86_400_000);
  // The access token's row keeps the grant's revocation as long as this refresh token lives.
  await registry.record(claims, { id: grant.grantId, keepUntil: refreshExpiresAt });
  const refreshToken = await store.issueRefreshToken({
    grantId: grant.grantId,
    clientId: grant.clientId,
    scope: grant.scope,
    accessTokenId: claims.id,
    expiresAt: refreshExpiresAt,
  });
  return {
    access_token: token,
    token_type: "Bearer",
    scope: grant.scope.join(" "),
    me,
    expires_in: Math.round((claims.expiresAt.getTime() - Date.now()) / 1000),
    refresh_token: refreshToken,
  };
}

/** The claims of a token this server issued, unless it is invalid, expired or revoked. */
async function liveClaims({ host, registry }: IndieAuthServer, token: string) {
  const verified = await host.tokens.verify(token);
  if ("reason" in verified || (await registry.isRevoked(verified.claims.id))) return null;
  return verified.claims;
}

export function tokenRoutes(router: Router, server: IndieAuthServer): void {
  const { registry, store } = server;

  router.post("/token", apiResponse, async (req, res) => {
    const body = form(req);
    // The revocation of IndieAuth's early days, which some clients still send.
    if (body.action === "revoke") {
      await revokeToken(server, body);
      res.json({});
      return;
    }
    if (body.grant_type === "authorization_code") {
      const grant = await spendCode(server, body);
      if (grant.scope.length === 0)
        throw oauthError(
          "invalid_grant",
          "No scope was granted with this code: it only says who signed in (redeem it at the authorization endpoint)",
        );
      res.json(await issueTokens(server, grant));
      return;
    }
    if (body.grant_type === "refresh_token") {
      const request = refreshRequest.safeParse(body);
      if (!request.success) throw oauthError("invalid_request", `The request's ${firstIssue(request.error)}`);
      // A request asking for more than the grant is refused before the token is spent: spending
      // it would make the client's next genuine refresh look like a replay and end its grant.
      const live = await store.peekRefreshToken(request.data.refresh_token);
      if (live) narrowedScope(live, request.data.client_id, request.data.scope);
      const redemption = await store.redeemRefreshToken(request.data.refresh_token);
      if (redemption.kind === "reused") {
        await revokeGrant(server, redemption.grantId);
        throw oauthError("invalid_grant", "This refresh token was used before; the grant is revoked");
      }
      if (redemption.kind === "unknown")
        throw oauthError("invalid_grant", "Unknown, expired or revoked refresh token");
      const grant = redemption.grant;
      const scope = narrowedScope(grant, request.data.client_id, request.data.scope);
      if (await registry.isRevoked(grant.accessTokenId)) {
        // Revoked on the status page: the client must not mint its way back in.
        await revokeGrant(server, grant.grantId);
        throw oauthError("invalid_grant", "The owner revoked this client's access");
      }
      res.json(await issueTokens(server, { ...grant, scope }));
      return;
    }
    if (body.grant_type === undefined) throw oauthError("invalid_request", "grant_type is missing");
    throw oauthError("unsupported_grant_type", 'grant_type must be "authorization_code" or "refresh_token"');
  });

  // Token verification of IndieAuth's early days (a resource server asks who a token is for).
  router.get("/token", apiResponse, async (req, res) => {
    const token = bearer(req);
    if (!token) throw unauthorized("Send the token to verify as Authorization: Bearer <token>");
    const claims = await liveClaims(server, token);
    if (!claims) throw unauthorized("The access token is not valid, expired or revoked");
    res.json({ me: claims.me, client_id: claims.clientId, scope: claims.scope.join(" ") });
  });

  // Introspection (RFC 7662, IndieAuth §6.1) for the owner's tools and resource servers: the caller
  // proves itself with a live token of this server.
  router.post("/introspect", apiResponse, async (req, res) => {
    const caller = bearer(req);
    if (!caller || !(await liveClaims(server, caller)))
      throw unauthorized("Introspection needs Authorization: Bearer <a valid access token of this server>");
    const request = tokenParameter.safeParse(form(req));
    if (!request.success) throw oauthError("invalid_request", "token is missing");
    const claims = await liveClaims(server, request.data.token);
    if (!claims) {
      res.json({ active: false });
      return;
    }
    res.json({
      active: true,
      me: claims.me,
      client_id: claims.clientId,
      scope: claims.scope.join(" "),
      exp: Math.floor(claims.expiresAt.getTime() / 1000),
      iat: Math.floor(claims.issuedAt.getTime() / 1000),
    });
  });
}
